// A program using the library as a user would (`import … from "dotagent-workflow"`): test/package.test.ts
// compiles it with tsc against the packed dist/types and nothing else installed. Not run.
import {
  DotagentError,
  EXIT,
  openWorkflow,
  parsePhaseState,
  PHASES,
  type Decision,
  type Phase,
  type PhaseState,
  type ResumeResult,
  type Task,
  type Workflow,
} from "dotagent-workflow";

export async function drive(dir: string): Promise<string> {
  const workflow: Workflow = openWorkflow(dir, { now: () => new Date(), onWarning: (message: string) => void message });
  const started = await workflow.init("add login", { workflowId: "wf-login" });
  if (!started.created) return started.decision.question;
  const phase: Phase = PHASES[0];
  const approved = await workflow.phase.approve(phase);
  const status: Phase = approved.phase;
  await workflow.phase.start("ARCHITECTURE", { designs: ["minimal", "robust"] });
  const imported = await workflow.tasks.import({
    tasks: [
      { id: "t1", title: "form" },
      { id: "t2", depends_on: ["t1"] },
    ],
  });
  const total: number = imported.total;
  const task = (await workflow.tasks.start("t1", { owner: 4242 })).task;
  const next = (await workflow.tasks.next()).tasks.map((t) => t.id);
  const decide = (d: Decision): boolean => d.default;
  const plan: ResumeResult = await workflow.resume({ staleAfter: "7d", maxParallel: 2, decide });
  const action: string = plan.next.action;
  const valid: boolean = (await workflow.validate()).valid;
  const once = await workflow.once("wf-login.commit", ["git", "commit", "-m", "x"], { check: "git log -1" });
  const rolled = await workflow.rollback("ARCHITECTURE", { yes: true });
  try {
    await workflow.tasks.complete("t9");
  } catch (error) {
    if (error instanceof DotagentError && error.exitCode === EXIT.locked) return error.code;
  }
  const parsed = parsePhaseState({});
  const state: PhaseState | undefined = parsed.ok ? parsed.value : undefined;
  const tasks: Task[] = [];
  return [
    status,
    total,
    task?.status,
    next.join(),
    action,
    valid,
    once.exit_code,
    rolled.rolled_back,
    state?.current_phase,
    tasks.length,
  ].join(" ");
}
