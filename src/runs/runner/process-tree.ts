import fs from "node:fs";

/** Every live descendant of `root` with its depth (1 = child), read from /proc; empty where there is no /proc. */
export function descendantsOf(root: number): { pid: number; depth: number }[] {
  let names: string[];
  try {
    names = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const found: { pid: number; depth: number }[] = [];
  const walk = (pid: number, depth: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push({ pid: child, depth });
      walk(child, depth + 1);
    }
  };
  walk(root, 1);
  return found;
}

/** Sends `sig` without minding a process that is already gone; true when it was sent. */
export function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    return process.kill(pid, sig);
  } catch {
    return false; // ESRCH: already gone.
  }
}
