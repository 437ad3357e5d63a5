import { useState } from "react";
import { Code, Table, Text } from "@mantine/core";
import { t } from "../i18n";

/** What a SHELL or PYTHON script is given: the README's "What a script sees", in the form. */
/** Shell, not prose: the same in every language. */
const paramsLine = 'params="${JOBWHEEL_INSTANCE_PARAMS:-$JOBWHEEL_JOB_PARAMS}"';

export const scriptVariables: [name: string, value: string][] = [
  ["JOBWHEEL_JOB_PARAMS", t("jobs.ScriptVariables.theJobSParameters")],
  ["JOBWHEEL_INSTANCE_PARAMS", t("jobs.ScriptVariables.thisRunSParameters")],
  ["JOBWHEEL_INSTANCE_ID", t("jobs.ScriptVariables.theRunSId")],
  ["JOBWHEEL_JOB_ID", t("jobs.ScriptVariables.theJobSId")],
  ["JOBWHEEL_TASK_ID", t("jobs.ScriptVariables.theTaskSId")],
  ["JOBWHEEL_TASK_NAME", t("jobs.ScriptVariables.rootForARun")],
  ["JOBWHEEL_SHARD_INDEX, JOBWHEEL_SHARD_TOTAL", t("jobs.ScriptVariables.inABroadcastTask")],
  ["JOBWHEEL_ATTEMPT", t("jobs.ScriptVariables.theInstanceSAttempt")],
  ["JOBWHEEL_WORKER_ID", t("jobs.ScriptVariables.theWorkerRunningThe")],
  ["JOBWHEEL_PAYLOAD", t("jobs.ScriptVariables.aMapSubtaskS")],
  ["PYTHONUNBUFFERED", t("jobs.ScriptVariables.n1InPythonJobs")],
  ["JOBWHEEL_WORKFLOW_CONTEXT", t("jobs.ScriptVariables.inAWorkflowNode")],
  ["JOBWHEEL_WORKFLOW_OUTPUT", t("jobs.ScriptVariables.inAWorkflowNode2")],
  ["JOBWHEEL_WORKFLOW_RUN_ID, JOBWHEEL_WORKFLOW_NODE", t("jobs.ScriptVariables.inAWorkflowNode3")],
  ["TRACEPARENT", t("jobs.ScriptVariables.theRunSW3c")],
];

/**
 * The environment variables and arguments a script sees, folded under the
 * script so it does not take the form's room until asked for.
 */
export function ScriptVariables() {
  // The list is drawn once opened: the form has enough rows as it is.
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <Text span size="sm">{t("jobs.ScriptVariables.whatTheScriptSees")}</Text>
      </summary>
      {open && (
        <>
          <Text size="sm" mt="xs">{t("jobs.ScriptVariables.theRunSParameters")}{" "}<Code>{paramsLine}</Code>{t("jobs.ScriptVariables.standardOutputIsLogged")}</Text>
          <Table mt="xs" withTableBorder verticalSpacing={4} fz="sm" aria-label={t("jobs.ScriptVariables.variablesAScriptSees")}>
            <Table.Tbody>
              {scriptVariables.map(([name, value]) => (
                <Table.Tr key={name}>
                  <Table.Th
                    scope="row"
                    style={{ fontFamily: "var(--mantine-font-family-monospace)", fontWeight: 400 }}
                  >
                    {name}
                  </Table.Th>
                  <Table.Td>{value}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </details>
  );
}
