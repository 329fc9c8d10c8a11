import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';

/**
 * What a raw receiver does once it has read a request's head: it writes bytes on the socket itself, so it can
 * misbehave in ways a well-behaved HTTP server library never would (101, a status line cut in half, one byte a
 * second, a body without end).
 */
export type RawBehaviour = (socket: Socket, head: string) => void;

/**
 * A TCP server on loopback speaking HTTP by hand, recording each request's head. Every socket it opened is
 * destroyed on close, and timers it set for a socket stop with it.
 */
export async function startRawReceiver(behaviours: Record<string, RawBehaviour>) {
  const heads: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    let answered = false;
    socket.on('data', (chunk) => {
      if (answered) return;
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      answered = true;
      const head = buffered.slice(0, end);
      heads.push(head);
      const path = /^\S+ (\S+)/.exec(head)?.[1] ?? '';
      const behave = behaviours[path];
      if (behave) behave(socket, head);
      else socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** The request heads received for a path. */
    at: (path: string) => heads.filter((head) => head.split(' ')[1] === path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes `text` one byte every `ms` until it is all out or the socket is gone. */
export function trickle(socket: Socket, text: string, ms: number) {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) {
      clearInterval(timer);
      return;
    }
    socket.write(text[at++]!);
  }, ms);
  socket.on('close', () => clearInterval(timer));
}

/** Writes chunks forever (as fast as the socket drains) until the socket is gone. */
export function endless(socket: Socket, chunk: string) {
  const pump = () => {
    while (!socket.destroyed && socket.write(chunk)) {
      /* keep writing until the buffer is full */
    }
    if (!socket.destroyed) socket.once('drain', pump);
  };
  pump();
}
