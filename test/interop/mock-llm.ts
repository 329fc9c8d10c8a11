import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One chat-completions request as the mock received it. */
export interface ReceivedPrompt {
  model: string;
  /** The system message: the running Expert's instruction, as the runtime builds it. */
  system: string;
  messages: Array<{ role: string; content?: unknown }>;
  tools: string[];
}

export interface MockLlm {
  /** The base URL Perstack's `deepseek` provider is given (`[provider.setting] baseUrl`). */
  url: string;
  prompts: ReceivedPrompt[];
  close(): Promise<void>;
}

/**
 * A language model on loopback speaking the OpenAI chat-completions protocol the way Perstack's `deepseek`
 * provider (the AI SDK) calls it: `POST {baseUrl}/chat/completions` with `stream: true`, answered as server-sent
 * `chat.completion.chunk` events ending in `data: [DONE]`. It is scripted, not clever:
 *
 * - a request offering a tool named in `delegateTo`, with no tool result in its conversation yet, is answered
 *   with a call of that tool (a delegation, with `{ query }`);
 * - every other request is answered with text naming the Expert (the first line of its system message), which
 *   the runtime takes as the run's result.
 *
 * Every request is recorded, so a test can show whose instruction the runtime sent. HTTPS, because Perstack
 * accepts only an `https://` provider URL.
 */
export async function startMockLlm(
  tls: { cert: string; key: string },
  delegateTo: string[],
): Promise<MockLlm> {
  const prompts: ReceivedPrompt[] = [];
  let calls = 0;
  const server = createServer(tls, (request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ error: { message: `no ${request.method} ${request.url}`, type: 'not_found' } }),
        );
        return;
      }
      const sent = JSON.parse(body) as {
        model: string;
        messages: Array<{ role: string; content?: unknown }>;
        tools?: Array<{ function: { name: string } }>;
      };
      const system = sent.messages.find((message) => message.role === 'system');
      const prompt: ReceivedPrompt = {
        model: sent.model,
        system: typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content ?? ''),
        messages: sent.messages,
        tools: (sent.tools ?? []).map((tool) => tool.function.name),
      };
      prompts.push(prompt);
      const answered = sent.messages.some((message) => message.role === 'tool');
      const delegate = answered ? undefined : delegateTo.find((name) => prompt.tools.includes(name));
      const id = `chatcmpl-${++calls}`;
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          created: Math.floor(Date.now() / 1000),
          model: sent.model,
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`;
      const usage = `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: sent.model,
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      })}\n\n`;
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write(chunk({ role: 'assistant', content: '' }, null));
      if (delegate) {
        const call = {
          index: 0,
          id: `call_${calls}`,
          type: 'function',
          function: {
            name: delegate,
            arguments: JSON.stringify({ query: `Please handle this, ${delegate}.` }),
          },
        };
        response.write(chunk({ tool_calls: [call] }, null));
        response.write(chunk({}, 'tool_calls'));
      } else {
        const who = prompt.system.split('\n')[0]?.slice(0, 120) ?? '';
        response.write(chunk({ content: `Done (mock). ` }, null));
        response.write(chunk({ content: `Instruction began: ${who}` }, null));
        response.write(chunk({}, 'stop'));
      }
      response.write(usage);
      response.end('data: [DONE]\n\n');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    prompts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
