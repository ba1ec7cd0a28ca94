// An address for ANTHROPIC_BASE_URL that answers (404 to anything), for `dotagent run`'s check that
// the API is there before it starts. In a child process of its own, so it keeps answering while
// a test waits in spawnSync.
import { spawn, type ChildProcess } from "node:child_process";

export interface ApiStandIn {
  readonly url: string;
  stop(): void;
}

const SERVER = `const s = require("node:http").createServer((q, r) => { r.statusCode = 404; r.end(); }); s.listen(0, "127.0.0.1", () => console.log(s.address().port));`;

export async function startApiStandIn(): Promise<ApiStandIn> {
  const child: ChildProcess = spawn(process.execPath, ["-e", SERVER], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim()));
    child.once("exit", (code) => reject(new Error(`the API stand-in exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}
