// Counted nouns for messages people read: "1 task", "2 tasks", never "1 task(s)".

/** `count(1, "task")` → "1 task"; `count(3, "task")` → "3 tasks"; irregular plurals passed in. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
