// `dotagent once OP-ID -- COMMAND …`: run a side effect (a commit, a push, a PR, a message) at most
// once per op id. The guard itself is src/store/run-once.ts; this file renders its outcome.
import { EXIT, usageError } from "../../core/errors.js";
import type { OnceOutcome } from "../../store/run-once.js";
import { checkOpId } from "../../store/op-records.js";
import { decodeOutput } from "../../core/once.js";
import { runOnceOp, type OnceResult } from "../../ops/once.js";
import { loadCold } from "../load-cold.js";
import { opContext, stringOption, type Command, type CommandContext } from "../context.js";
import { formatTime } from "../time.js";
import { putDecision } from "../output.js";

export const command: Command = {
  summary: "run a side effect at most once per op id (commits, pushes, PRs, messages)",
  usage:
    "dotagent once OP-ID [--check COMMAND] [--json] -- COMMAND [ARGS…]  |  once OP-ID --mark-done  |  once OP-ID --redo -- COMMAND [ARGS…]",
  options: { check: { type: "string" }, "mark-done": { type: "boolean" }, redo: { type: "boolean" } },
  examples: [
    "dotagent once wf-login.task-001.commit -- git commit -m 'Login form'",
    "dotagent once wf-login.branch --check 'git rev-parse --verify feature/login' -- git branch feature/login",
    "dotagent once wf-login.pr --json -- gh pr create --fill          again later: prints the recorded result, runs nothing",
    "dotagent once wf-login.pr --mark-done                           the person says the cut-off run did take effect",
  ],
  async run(context) {
    const [opId, ...argv] = context.args;
    if (opId === undefined)
      throw usageError("once needs an op id, then `--` and the command; see `dotagent once --help`");
    checkOpId(opId); // before any message echoes it
    const markDone = context.options["mark-done"] === true;
    const redo = context.options.redo === true;
    if (markDone && redo) throw usageError("--mark-done and --redo answer the same question two ways; give one");
    if (!markDone && argv.length === 0)
      throw usageError(
        `once ${opId} needs the command to run after \`--\`, e.g. \`dotagent once ${opId} -- git push\``,
      );
    const toStdout = stdoutWriter();
    const input = {
      check: stringOption(context, "check"),
      markDone,
      redo,
      ...(context.out.json ? {} : { onStdout: toStdout }),
    };
    const { result, outcome } = await runOnceOp(opContext(context), opId, argv, {
      ...input,
      decide: async (d) => (await loadCold()).askDecision(d, false),
    });
    if (outcome.outcome === "decide") {
      const { decision } = outcome;
      return putDecision(context.out, result, decision);
    }
    return render(context, argv, result, outcome, toStdout);
  },
};

/** The command's own exit code (ran or replayed), so a script sees what the command said. */
/**
 * Writes to stdout until its reader goes away (`once … | head -c 10`): then the rest is dropped,
 * the command runs on and its result is still recorded (the record keeps the first 16 KiB). A
 * closed stdout stops the forwarding, never the recording.
 */
function stdoutWriter(): (chunk: Uint8Array) => void {
  let open = true;
  process.stdout.on("error", () => {
    open = false; // EPIPE: nobody reads any more
  });
  return (chunk) => {
    if (open && !process.stdout.destroyed) process.stdout.write(chunk);
  };
}

/** A program name on one line, at most 80 characters (it came from the command line). */
function showProgram(name: string): string {
  const line = name.replace(/[\u0000-\u001f\u007f]/g, "?");
  return line.length <= 80 ? line : `${line.slice(0, 40)}… (${name.length} characters)`;
}

function render(
  context: CommandContext,
  argv: readonly string[],
  json: OnceResult,
  result: Exclude<OnceOutcome, { outcome: "decide" }>,
  toStdout: (chunk: Uint8Array) => void,
): number {
  const r = result.record;
  const exitCode = r.exit_code ?? 0;
  if (context.out.json) {
    context.out.result(json, () => []);
    return exitCode;
  }
  const cut = r.stdout_truncated ? " (output cut at 16 KiB)" : "";
  // "dotagent: " starts errors and warnings only; news that all is well reads as news.
  switch (result.outcome) {
    case "ran":
      if (r.start_error)
        context.out.note(
          `dotagent: op ${r.op_id}: ${showProgram(r.command[0] ?? "")}: ${r.start_error} (exit ${exitCode}); recorded failed, running the same command again retries it`,
        );
      else if (exitCode !== 0)
        context.out.note(
          `dotagent: op ${r.op_id} failed (exit ${exitCode}); running the same command again retries it`,
        );
      break;
    case "replayed":
      if (argv.length > 0 && argv.join("\0") !== r.command.join("\0"))
        context.out.note(
          `dotagent: warning: op ${r.op_id} was recorded for \`${r.command.join(" ")}\`, not this command; op ids name one effect each`,
        );
      // Byte for byte, as the command wrote it: no newline added, binary kept (base64 in the record).
      toStdout(decodeOutput(r));
      // stdout is the command's recorded output (a script reads it), so this line goes to stderr.
      context.out.note(
        `Op ${r.op_id} already done at ${formatTime(r.finished_at)} (${r.how === "ran" ? `exit ${exitCode}` : r.how === "checked" ? "found done by --check" : "marked done"}); not run again${cut}.`,
      );
      break;
    case "checked":
      context.out.result(json, () => [
        `Op ${r.op_id}: the check passed, so the cut-off run took effect; recorded done, not run again.`,
      ]);
      break;
    case "marked_done":
      context.out.result(json, () => [`Op ${r.op_id} recorded done; it will not run again.`]);
      break;
  }
  return exitCode;
}
