// A git server over smart HTTP for the plugin end-to-end test: `node git-http-server.mjs ROOT`
// serves the bare repositories under ROOT at http://127.0.0.1:<port>/<name>.git through
// `git http-backend` (CGI), and prints the port when it listens. Claude Code clones a git
// marketplace shallowly, which git's dumb HTTP cannot serve, and accepts only http(s) URLs.
// It runs as its own process because the test blocks in spawnSync while Claude Code clones.
import { spawn } from "node:child_process";
import { createServer } from "node:http";

const root = process.argv[2];
const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const env = {
    ...process.env,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: req.method ?? "GET",
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    HTTP_CONTENT_ENCODING: req.headers["content-encoding"] ?? "",
    GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
    REMOTE_ADDR: "127.0.0.1",
  };
  const cgi = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "inherit"] });
  req.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  cgi.stdout.on("data", (chunk) => {
    if (headersDone) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  cgi.on("close", () => res.end());
});
server.listen(0, "127.0.0.1", () => console.log(String(server.address().port)));
