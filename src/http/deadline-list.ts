export interface DeadlineNode<T> {
  item: T;
  deadline: number;
  previous: DeadlineNode<T> | null;
  next: DeadlineNode<T> | null;
}

/**
 * Items (in-flight requests) in deadline order, which is arrival order when every item gets the same
 * time: a doubly linked list, O(1) to join and to leave, expired items taken from the head.
 */
export function createDeadlineList<T>() {
  let head: DeadlineNode<T> | null = null;
  let tail: DeadlineNode<T> | null = null;
  const remove = (node: DeadlineNode<T>) => {
    if (node.previous) node.previous.next = node.next;
    else if (head === node) head = node.next;
    else return; // already removed
    if (node.next) node.next.previous = node.previous;
    else tail = node.previous;
    node.previous = null;
    node.next = null;
  };
  return {
    add(item: T, deadline: number): DeadlineNode<T> {
      const node: DeadlineNode<T> = { item, deadline, previous: tail, next: null };
      if (tail) tail.next = node;
      else head = node;
      tail = node;
      return node;
    },
    remove,
    /** Removes and yields the items whose deadline is at or before `now`. */
    *expired(now: number): Generator<T> {
      while (head && head.deadline <= now) {
        const node = head;
        remove(node);
        yield node.item;
      }
    },
  };
}
