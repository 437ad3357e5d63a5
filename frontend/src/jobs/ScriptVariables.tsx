import { useState } from "react";
import { Code, Table, Text } from "@mantine/core";

/** What a SHELL or PYTHON script is given: the README's "What a script sees", in the form. */
export const scriptVariables: [name: string, value: string][] = [
  ["JOBWHEEL_JOB_PARAMS", "the job's Parameters (below); also $1"],
  ["JOBWHEEL_INSTANCE_PARAMS", "this run's parameters, given with Run now; empty for scheduled runs; also $2"],
  ["JOBWHEEL_INSTANCE_ID", "the run's id, as on its instance page"],
  ["JOBWHEEL_JOB_ID", "the job's id"],
  ["JOBWHEEL_TASK_ID", "the task's id"],
  ["JOBWHEEL_TASK_NAME", "ROOT for a run's main task; BROADCAST <index>/<total>, PRE or POST in a broadcast; REDUCE, or a subtask's name"],
  ["JOBWHEEL_SHARD_INDEX, JOBWHEEL_SHARD_TOTAL", "in a BROADCAST task, this worker's share: 0 to total-1 of total; 0 and 0 otherwise"],
  ["JOBWHEEL_ATTEMPT", "the instance's attempt: 1, then 2, 3… when it is retried"],
  ["JOBWHEEL_WORKER_ID", "the worker running the task"],
  ["JOBWHEEL_PAYLOAD", "a map subtask's payload (JSON); empty otherwise"],
  ["PYTHONUNBUFFERED", "1 in PYTHON jobs, so lines arrive as they are printed"],
  ["JOBWHEEL_WORKFLOW_CONTEXT", "in a workflow node only: a JSON file with the run's context and the upstream nodes' results"],
  ["JOBWHEEL_WORKFLOW_OUTPUT", "in a workflow node only: where to write a JSON object to add to the run's context"],
  ["JOBWHEEL_WORKFLOW_RUN_ID, JOBWHEEL_WORKFLOW_NODE", "in a workflow node only: the run's id and the node's key"],
  ["TRACEPARENT", "the run's W3C trace context when it is traced, to pass on to what the script calls; empty otherwise"],
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
        <Text span size="sm">
          What the script sees: its parameters and environment
        </Text>
      </summary>
      {open && (
        <>
          <Text size="sm" mt="xs">
            The run&apos;s parameters when given, else the job&apos;s:{" "}
            <Code>{'params="${JOBWHEEL_INSTANCE_PARAMS:-$JOBWHEEL_JOB_PARAMS}"'}</Code>. Standard output is logged at
            INFO, standard error at ERROR, line by line as written; exit status 0 succeeds.
          </Text>
          <Table mt="xs" withTableBorder verticalSpacing={4} fz="sm" aria-label="Variables a script sees">
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
