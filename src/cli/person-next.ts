// The Next line for a person at a terminal (SPEC §10 "Next steps for people"). The plan's `next`
// is addressed to the model ("spawn the pm agent"), and stays so in --json and in the hooks,
// which programs and the model read; a person is told what *they* type: `/develop …` in Claude
// Code where dotagent is installed into the project, else `dotagent run`, and at a gate what to
// answer; in Copilot CLI and Codex CLI where dotagent is installed for them (`$develop` in Codex).
// Only when stdout is a terminal and the caller is not a client's model shell (byModel).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { NextAction } from "../core/plan-resume.js";
import type { Flow } from "../core/flow.js";
import { approvalAt } from "../core/gates.js";
import type { CommandContext } from "./context.js";
import { opContext } from "./context.js";

/**
 * Where the person drives the workflow from: a client dotagent is installed into in this project
 * (Claude Code, GitHub Copilot CLI, OpenAI Codex CLI; looked for in that order), or `dotagent run`.
 */
export type Driver = "claude" | "copilot" | "codex" | "headless";

/** install's manifest (src/claude/install-manifest.ts MANIFEST; not imported: status is on the start-up path). */
export const INSTALL_MANIFEST = ".claude/.dotagent-install.json";

/** Each client's install manifest (src/clients/*\/install.ts) and what the person types there. */
export const CLIENT_DRIVERS = [
  { driver: "claude", manifest: INSTALL_MANIFEST, client: "Claude Code", command: "/develop" },
  { driver: "copilot", manifest: ".github/.dotagent-copilot-install.json", client: "Copilot CLI", command: "/develop" },
  { driver: "codex", manifest: ".codex/.dotagent-install.json", client: "Codex CLI", command: "$develop" },
] as const;

const clientOf = (driver: Driver) => CLIENT_DRIVERS.find((c) => c.driver === driver);

/** The person reading plain output, and where they drive the workflow from; null when a program or the model reads it. */
export function personReading(context: CommandContext): Driver | null {
  if (context.out.json || process.stdout.isTTY !== true || opContext(context).byModel === true) return null;
  return CLIENT_DRIVERS.find((c) => existsSync(join(context.paths.root, c.manifest)))?.driver ?? "headless";
}

/**
 * What the person types to start a workflow (of the definition `workflow`, when one is named):
 * the one source for every line that tells a person how (status, init, resume, workflows, tasks,
 * report), so none sends them to `dotagent init`, which starts no agent.
 */
export function howToStart(driver: Driver, workflow?: string): string {
  const named = workflow === undefined ? "" : `--workflow ${workflow} `;
  const client = clientOf(driver);
  return client !== undefined
    ? `type ${client.command} ${named}<what to build> in ${client.client}`
    : `dotagent run ${named}"<what to build>"`;
}

function goOn(driver: Driver, what: string): string {
  const client = clientOf(driver);
  return client !== undefined
    ? `Next: type ${client.command} in ${client.client} to go on (${what})`
    : `Next: dotagent run goes on (${what})`;
}

/**
 * What the person does next, as one line; null where the model's line already speaks to a person
 * (decisions, dead tasks, waiting); at the end, what starts the next workflow. `flow`: the one the workflow walks, where its gates are.
 */
export function personNext(next: NextAction, driver: Driver, flow: Flow): string | null {
  const client = clientOf(driver);
  switch (next.action) {
    case "start_workflow":
      return `Next: ${howToStart(driver)}, e.g. ${client !== undefined ? `${client.command} add login` : 'dotagent run "add login"'}`;
    case "await_approval": {
      const gate = approvalAt(flow, next);
      if (gate?.does === "pick")
        return client !== undefined
          ? `Next: pick a design in ${client.client} (${gate.report} compares them)`
          : `Next: dotagent run asks you to pick a design (${gate.report} compares them)`;
      const file = next.output ?? gate?.report ?? "the report";
      return client !== undefined
        ? `Next: read ${file}, then type approve in ${client.client} (or what to change)`
        : `Next: dotagent run asks you to approve ${file} (or say what to change)`;
    }
    case "spawn_agent":
      return goOn(driver, `the ${next.agent ?? "next"} agent is next`);
    case "resolve_failed_agent":
      return goOn(driver, `the ${next.agent ?? "phase's"} agent runs again; \`dotagent status\` shows why it failed`);
    case "plan_tasks":
      return goOn(driver, "the tasks are planned next");
    case "run_tasks":
      return next.tasks.length > 0
        ? goOn(
            driver,
            `${next.tasks.length === 1 ? "task" : "tasks"} ${next.tasks.slice(0, 5).join(", ")}${next.tasks.length > 5 ? ", …" : ""} next`,
          )
        : null;
    case "run_step":
      return goOn(driver, `step ${next.step ?? "?"} is next`);
    case "workflow_complete":
      return `Next: nothing to do — ${next.reason}; start another: ${howToStart(driver)} (\`dotagent show\` reads this one's reports)`;
    default:
      return null;
  }
}

/** A gate approved before its output exists: the model still writes it, so the person lets the session go on. */
export function personGoOn(driver: Driver): string {
  return goOn(driver, "the approved step still needs its output written");
}

/**
 * While a `dotagent run` drives the workflow, the person types nothing to make it go on (`/develop`
 * beside it would run the same agents twice); at a gate it is that run, in its terminal, that asks.
 */
export function personNextBesideRun(next: NextAction, pid: number, flow: Flow, approves = false): string | null {
  if (next.action === "workflow_complete") return null;
  if (next.action === "await_approval" && approves)
    return `Next: nothing to type — dotagent run (pid ${pid}) approves it itself (--approve auto) and goes on`;
  if (next.action !== "await_approval") return `Next: nothing to type — dotagent run (pid ${pid}) goes on by itself`;
  const gate = approvalAt(flow, next);
  return gate?.does === "pick"
    ? `Next: pick a design where dotagent run (pid ${pid}) asks, in its terminal (${gate.report} compares them)`
    : `Next: answer dotagent run (pid ${pid}) in its terminal: approve ${next.output ?? gate?.report ?? "the report"}, or say what to change`;
}

/**
 * status's Next line for a person: beside a live `dotagent run`, that it goes on by itself (or
 * asks in its terminal); after an approval whose output is still to be written (approvedNeeds),
 * go on; else personNext.
 */
export function personNextOf(
  next: NextAction,
  approvedNeeds: string | null,
  driver: Driver,
  flow: Flow,
  liveRun: { readonly pid: number; readonly approves?: boolean } | null = null,
  runApproves = false,
): string | null {
  if (liveRun !== null) {
    const beside = personNextBesideRun(next, liveRun.pid, flow, liveRun.approves === true);
    if (beside !== null) return beside;
  }
  // `dotagent run` given --approve auto remembers it: run again, it asks nobody at this gate.
  if (driver === "headless" && runApproves && next.action === "await_approval") {
    const gate = approvalAt(flow, next);
    return gate?.does === "pick"
      ? `Next: dotagent run goes on (it picks the roundtable's recommendation itself: --approve auto)`
      : `Next: dotagent run goes on (it approves ${next.output ?? gate?.report ?? "the report"} itself: --approve auto)`;
  }
  return approvedNeeds !== null ? personGoOn(driver) : personNext(next, driver, flow);
}
