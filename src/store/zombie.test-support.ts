// A zombie for the tests that judge processes: a child that has exited and that its parent never
// reaps. The child ends only once its parent shell has become `sleep` (the same pid, after
// `exec`), which never reaps it; a child that ended sooner could be reaped by the shell first, as
// happened under CI's load. The caller kills the parent when done.
import { spawn, type ChildProcess } from "node:child_process";

export async function spawnZombie(parentSeconds: number): Promise<{ parent: ChildProcess; pid: number }> {
  const script = `p=$$; ( while [ "$(cat /proc/$p/comm)" != sleep ]; do sleep 0.02; done ) & echo $!; exec sleep ${parentSeconds}`;
  const parent = spawn("/bin/sh", ["-c", script], { stdio: ["ignore", "pipe", "ignore"] });
  const pid = Number(
    await new Promise<string>((resolve) => parent.stdout!.once("data", (d: Buffer) => resolve(d.toString()))),
  );
  return { parent, pid };
}
