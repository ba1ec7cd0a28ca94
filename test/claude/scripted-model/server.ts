// A local server speaking the Anthropic Messages API, so the real Claude Code binary can run a
// whole workflow offline (ANTHROPIC_BASE_URL=<url>). Every answer comes from a deterministic
// policy (policy.ts); every request, tool call and tool result is logged as JSON lines.
// No dependencies beyond node:http.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { appendFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { decide, type Block, type Reply, type ApiRequest, type PolicyOptions } from "./policy.js";

export interface LogEntry {
  kind: "request" | "response" | "tool_result" | "feedback";
  k: number;
  session?: string;
  who?: string;
  [key: string]: unknown;
}

export interface ScriptedModel {
  url: string;
  /** Requests to /v1/messages so far (side requests included). */
  requests(): number;
  close(): Promise<void>;
}

export interface ServerOptions {
  logFile: string;
  agentsDir: string;
  /**
   * Called for each /v1/messages request before it is answered, with its number and who sent
   * it. Returning "hang" leaves the request unanswered (the test kills the client meanwhile); a
   * promise holds the answer until it settles (an agent at work while the person does something).
   */
  /** Replaces the scripted policy (for probes that play other moves). */
  policy?: (body: ApiRequest, k: number) => Reply;
  onRequest?: (
    k: number,
    info: { who: string; lastToolResult: ToolResultSummary | null; session: string },
  ) => "answer" | "hang" | Promise<unknown>;
  /** The scripted policy's options (task plan, --max-parallel). */
  policyOptions?: PolicyOptions;
  /** The input tokens an answer reports, by who asks (default 1): a full context, so the client compacts by itself. */
  inputTokens?: (who: string) => number;
  /** Holds an answer back this long, by who asks (an executor that takes a fixed time to work). */
  delayMs?: (who: string, reply: Reply) => number;
}

export interface ToolResultSummary {
  tool_use_id: string;
  is_error: boolean;
  text: string;
}

function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((c) => (c && typeof c === "object" && "text" in c ? String((c as { text: unknown }).text) : ""))
      .join("\n");
  return "";
}

/** The tool results the client sends back in the newest user message. */
export function newestToolResults(body: ApiRequest): ToolResultSummary[] {
  // The results of the newest assistant message's calls: in the user messages after it (the
  // client may add `system` entries around them).
  const messages = body.messages ?? [];
  const after = messages.slice(messages.findLastIndex((m) => m.role === "assistant") + 1);
  return after
    .flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content : []))
    .filter((c) => c.type === "tool_result")
    .map((c) => ({
      tool_use_id: String(c.tool_use_id),
      is_error: c.is_error === true,
      text: textOfContent(c.content),
    }));
}

/** Hook feedback in the messages after the newest assistant message (a SubagentStop block's reason). */
export function newestFeedback(body: ApiRequest): string[] {
  const messages = body.messages ?? [];
  const after = messages.slice(messages.findLastIndex((m) => m.role === "assistant") + 1);
  const texts = after.flatMap((m) =>
    m.role === "user"
      ? typeof m.content === "string"
        ? [m.content]
        : m.content.filter((c) => c.type === "text").map((c) => String(c.text ?? ""))
      : [],
  );
  return [...new Set(texts.flatMap((t) => [...t.matchAll(/^Stop hook feedback:\n(.*)$/gm)].map((m) => m[1]!)))];
}

function sse(res: ServerResponse, id: string, model: string, reply: Reply, inputTokens = 1): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (type: string, data: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event("message_start", {
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1 },
    },
  });
  reply.blocks.forEach((block, index) => {
    if (block.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    event("content_block_stop", { index });
  });
  event("message_delta", { delta: { stop_reason: reply.stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  event("message_stop", {});
  res.end();
}

export async function startScriptedModel(options: ServerOptions): Promise<ScriptedModel> {
  let count = 0;
  const log = (entry: LogEntry) => appendFileSync(options.logFile, `${JSON.stringify({ ...entry, t: Date.now() })}\n`);
  const hanging = new Set<ServerResponse>();

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const path = (req.url ?? "/").split("?")[0];
    let body: ApiRequest = {};
    try {
      body = JSON.parse(raw || "{}") as ApiRequest;
    } catch {
      // answered below as a bad request
    }
    if (req.method === "POST" && path === "/v1/messages/count_tokens") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
      return;
    }
    if (req.method !== "POST" || path !== "/v1/messages") {
      res.setHeader("content-type", "application/json");
      res.end("{}");
      return;
    }
    const k = ++count;
    const session = String(req.headers["x-claude-code-session-id"] ?? "");
    const reply =
      options.policy?.(body, k) ??
      decide(body, {
        agentsDir: options.agentsDir,
        seq: k,
        ...(options.policyOptions ? { policy: options.policyOptions } : {}),
      });
    const results = newestToolResults(body);
    log({
      kind: "request",
      k,
      session,
      who: reply.who,
      bytes: raw.length,
      messages: body.messages?.length ?? 0,
      stream: body.stream === true,
      dotagent: dotagentTexts(body),
      ...(reply.who === "monitor" ? { about: monitorSubject(body) } : {}),
      ...(process.env.DOTAGENT_SCRIPTED_TAIL ? { tail: body.messages?.slice(-4) } : {}),
    });
    for (const r of results) log({ kind: "tool_result", k, session, who: reply.who, ...r });
    // A hook's words to an agent that are no tool result (print mode's "Stop hook feedback"): logged once each.
    for (const text of newestFeedback(body)) log({ kind: "feedback", k, session, who: reply.who, text });
    const verdict =
      options.onRequest?.(k, { who: reply.who, lastToolResult: results.at(-1) ?? null, session }) ?? "answer";
    if (verdict === "hang") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    const send = () => {
      if (res.destroyed) return;
      log({ kind: "response", k, session, who: reply.who, stop: reply.stop, blocks: reply.blocks.map(summarise) });
      const id = `msg_${k}`;
      const model = String(body.model ?? "claude-scripted");
      const inputTokens = options.inputTokens?.(reply.who) ?? 1;
      if (body.stream === true) sse(res, id, model, reply, inputTokens);
      else {
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            id,
            type: "message",
            role: "assistant",
            model,
            content: reply.blocks,
            stop_reason: reply.stop,
            stop_sequence: null,
            usage: { input_tokens: inputTokens, output_tokens: 1 },
          }),
        );
      }
    };
    const delay = options.delayMs?.(reply.who, reply) ?? 0;
    if (typeof verdict === "object") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      void verdict.finally(send);
    } else if (delay > 0) {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      setTimeout(send, delay);
    } else send();
  };

  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (raw += chunk));
    req.on("end", () => {
      try {
        handle(req, res, raw);
      } catch (error) {
        log({ kind: "response", k: count, who: "server-error", error: String((error as Error).stack ?? error) });
        res.statusCode = 500;
        res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: String(error) } }));
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () =>
      new Promise<void>((done) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/**
 * The dotagent texts in a request that are not tool results: skill expansions and SessionStart
 * briefings, each with a hash so a reader counts each once (the client resends the history).
 */
function dotagentTexts(body: ApiRequest): Array<{ kind: string; sha: string; bytes: number }> {
  const found: Array<{ kind: string; sha: string; bytes: number }> = [];
  for (const m of body.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const c of m.content) {
      const t = c.type === "text" ? String(c.text ?? "") : "";
      const kind = t.startsWith("Base directory for this skill:")
        ? "skill"
        : /SessionStart hook additional context: dotagent/.test(t)
          ? "briefing"
          : null;
      if (kind)
        found.push({ kind, sha: createHash("sha1").update(t).digest("hex").slice(0, 12), bytes: Buffer.byteLength(t) });
    }
  }
  return found;
}

/**
 * What auto mode's security monitor is asked about: the last action of the transcript it gets, by
 * kind (`helper` for dotagent's own command lines, `spawn` for an Agent call, `handback` for a
 * sub-agent's SubagentHandback, `other`).
 */
function monitorSubject(body: ApiRequest): string {
  const last = JSON.stringify(body.messages?.at(-1)?.content ?? "");
  const tools = [...last.matchAll(/\{\\"(\w+)\\":/g)].map((m) => m[1]!);
  const tool = tools.filter((t) => t !== "user" && t !== "assistant" && t !== "meta").at(-1) ?? "";
  if (tool === "Bash") {
    const i = last.lastIndexOf('{\\"Bash\\":');
    return /dotagent\.[cm]js/.test(last.slice(i, i + 600)) ? "helper" : "other";
  }
  if (tool === "Agent" || tool === "Task") return "spawn";
  if (tool === "SubagentHandback") return "handback";
  return tool === "" ? "other" : `other:${tool}`;
}

function summarise(block: Block): object {
  return block.type === "text"
    ? { type: "text", text: block.text }
    : { type: "tool_use", id: block.id, name: block.name, input: block.input };
}
