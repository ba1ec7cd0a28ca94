// A local server speaking the OpenAI Responses API (POST /v1/responses, streamed as server-sent
// events), so the real Codex binary runs a whole workflow offline. Every answer comes from the one
// deterministic policy of the Claude Code journeys (test/claude/scripted-model/policy.ts) through
// translate.ts; each request and answer is logged as a JSON line. No dependencies beyond node:http.
import { appendFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decide, type PolicyOptions } from "../../claude/scripted-model/policy.js";
import {
  closeItem,
  toClaudeRequest,
  toResponsesItems,
  waitItem,
  type ResponsesItem,
  type ResponsesRequest,
} from "./translate.js";

export interface CodexModelOptions {
  logFile: string;
  agentsDir: string;
  policyOptions?: PolicyOptions;
  /** Answers in place of the policy when it returns items (probes that play other moves). */
  override?: (body: ResponsesRequest, k: number) => ResponsesItem[] | undefined;
  /** Called before each answer with who asks and what it would get; "hang" leaves it unanswered (the test kills the client). */
  onRequest?: (k: number, info: { who: string; items: ResponsesItem[] }) => "answer" | "hang";
}

export interface CodexModel {
  url: string;
  requests(): number;
  close(): Promise<void>;
}

/** The events Codex 0.169.0 reads of a streamed response (test/codex/NOTES.md). */
function stream(res: ServerResponse, k: number, items: ResponsesItem[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (type: string, data: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const id = `resp_${k}`;
  const output = items.map((item, i) => ({ id: `item_${k}_${i}`, status: "completed", ...item }));
  event("response.created", { response: { id, status: "in_progress", output: [] } });
  output.forEach((item, i) => {
    event("response.output_item.added", {
      output_index: i,
      item: item.type === "message" ? { ...item, content: [] } : item,
    });
    if (item.type === "message")
      event("response.output_text.delta", {
        item_id: item.id,
        output_index: i,
        content_index: 0,
        delta: item.content?.[0]?.text ?? "",
      });
    event("response.output_item.done", { output_index: i, item });
  });
  event("response.completed", {
    response: {
      id,
      status: "completed",
      output,
      usage: {
        input_tokens: 1,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 1,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 2,
      },
    },
  });
  res.end();
}

export async function startCodexModel(options: CodexModelOptions): Promise<CodexModel> {
  let count = 0;
  const hanging = new Set<ServerResponse>();
  const log = (entry: Record<string, unknown>) =>
    appendFileSync(options.logFile, `${JSON.stringify({ ...entry, t: Date.now() })}\n`);
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (raw += chunk));
    req.on("end", () => {
      if (req.method !== "POST" || (req.url ?? "").split("?")[0] !== "/v1/responses") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end("{}");
        return;
      }
      const k = ++count;
      try {
        const body = JSON.parse(raw || "{}") as ResponsesRequest;
        const { request, pending, unclosed, isMain } = toClaudeRequest(body);
        let who = "main";
        let items: ResponsesItem[];
        const own = options.override?.(body, k);
        if (own !== undefined) {
          who = "override";
          items = own;
        } else if (isMain && pending.length > 0) items = [waitItem(pending, k)];
        else if (isMain && unclosed.length > 0) items = unclosed.map((id, i) => closeItem(id, k, i));
        else {
          const reply = decide(request, {
            agentsDir: options.agentsDir,
            seq: k,
            ...(options.policyOptions ? { policy: options.policyOptions } : {}),
          });
          who = reply.who;
          items = toResponsesItems(reply);
        }
        log({
          kind: "request",
          k,
          who,
          items: body.input?.length ?? 0,
          thread: String(req.headers["thread-id"] ?? ""),
        });
        if (options.onRequest?.(k, { who, items }) === "hang") {
          hanging.add(res);
          res.on("close", () => hanging.delete(res));
          return;
        }
        log({
          kind: "response",
          k,
          who,
          output: items.map((i) =>
            i.type === "message" ? { text: i.content?.[0]?.text } : { call: i.name, arguments: i.arguments },
          ),
        });
        stream(res, k, items);
      } catch (error) {
        log({ kind: "response", k, who: "server-error", error: String((error as Error).stack ?? error) });
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(error) } }));
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => count,
    close: () =>
      new Promise<void>((done) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
