import { useState } from "react";
import { Anchor, Badge, Button, CloseButton, Code, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { appPath } from "../apps/currentApp";
import { Timestamp } from "../components/Timestamp";
import type { WorkflowRunFieldsFragment } from "../graphql/graphql";
import { LogViewer } from "../instances/LogViewer";
import { StatusBadge } from "../instances/StatusBadge";
import { isUnfinished } from "../instances/status";
import { useInstanceLogs } from "../instances/useInstanceLogs";
import { NodeActions } from "./RunActions";
import { nodeStatusColors, shownNodeStatus } from "./status";
import { t } from "../i18n";

type Run = WorkflowRunFieldsFragment;
type Node = Run["nodes"][number];
type NodeInstance = Node["instances"][number];

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text component="div" size="sm">
        {children}
      </Text>
    </div>
  );
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

interface NodeRunPanelProps {
  app: string;
  run: Run;
  node: Node;
  canEdit: boolean;
  onRun: (run: Run) => void;
  onClose: () => void;
}

/**
 * A node of a run: its state, times, result, what it was given and what it
 * appended, its job instances (a FOREACH's elements), a NESTED node's run,
 * its actions, and the chosen instance's live log.
 */
export function NodeRunPanel({ app, run, node, canEdit, onRun, onClose }: NodeRunPanelProps) {
  const shown = shownNodeStatus(node.status, run.status);
  const [chosen, setChosen] = useState<string | null>(null);
  const instance = node.instances.find((i) => i.id === chosen) ?? node.instances.at(-1) ?? null;
  return (
    <Paper withBorder radius="md" p="sm" component="section" aria-label={t("workflows.NodeRunPanel.node", { key: node.key })}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs">
            <Title order={3} size="h5">
              {node.name || node.key}
            </Title>
            <Badge variant="light" size="sm">
              {node.type}
            </Badge>
            <Badge color={nodeStatusColors[shown]} data-testid="node-status">
              {shown.replace("_", " ")}
            </Badge>
          </Group>
          <CloseButton aria-label={t("workflows.NodeRunPanel.closeTheNode")} onClick={onClose} />
        </Group>
        {canEdit && <NodeActions run={run} node={node} onRun={onRun} />}
        <SimpleGrid cols={{ base: 2, md: 4 }} spacing="xs">
          <Field label={t("workflows.NodeRunPanel.key")}>{node.key}</Field>
          <Field label={t("workflows.NodeRunPanel.generation")}>{node.generation}</Field>
          <Field label={t("workflows.NodeRunPanel.started")}>{node.startedTime ? <Timestamp value={node.startedTime} compact /> : "—"}</Field>
          <Field label={t("workflows.NodeRunPanel.finished")}>{node.finishedTime ? <Timestamp value={node.finishedTime} compact /> : "—"}</Field>
          {node.reason && <Field label={t("workflows.NodeRunPanel.reason")}>{node.reason}</Field>}
          {node.failureIgnored && <Field label={t("workflows.NodeRunPanel.failure")}>{t("workflows.NodeRunPanel.ignoredSkipwhenfailed")}</Field>}
          {node.deadline && (
            <Field label={t("workflows.NodeRunPanel.deadline")}>
              <Timestamp value={node.deadline} compact />
            </Field>
          )}
          {node.decidedBy && <Field label={t("workflows.NodeRunPanel.decidedBy")}>{node.decidedBy}</Field>}
        </SimpleGrid>
        {node.message && <Text size="sm">{node.message}</Text>}
        {node.comment && (
          <Text size="sm" c="dimmed">{t("workflows.NodeRunPanel.comment", { comment: node.comment })}</Text>
        )}
        {node.result && (
          <Field label={t("workflows.NodeRunPanel.result")}>
            <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
              {node.result}
            </Code>
          </Field>
        )}
        {node.child && (
          <Group gap="xs">
            <Text size="sm">{t("workflows.NodeRunPanel.nestedRun")}</Text>
            <Anchor component={Link} to={appPath(app, "workflow-instances", node.child.id)}>{t("workflows.NodeRunPanel.run", { id: node.child.id })}</Anchor>
            <Badge size="xs">{node.child.status}</Badge>
          </Group>
        )}
        <Field label={t("workflows.NodeRunPanel.appendedToTheContext")}>
          {node.output ? <Code block>{json(node.output)}</Code> : <Text size="sm" c="dimmed">{t("workflows.NodeRunPanel.nothing")}</Text>}
        </Field>
        {node.instances.length > 0 && (
          <Instances app={app} node={node} current={instance} onChoose={setChosen} />
        )}
        {instance && <InstanceInput instance={instance} />}
        {instance && <InstanceLog key={instance.id} instance={instance} />}
      </Stack>
    </Paper>
  );
}

function Instances({
  app,
  node,
  current,
  onChoose,
}: {
  app: string;
  node: Node;
  current: NodeInstance | null;
  onChoose: (id: string) => void;
}) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {node.type === "FOREACH" ? t("workflows.NodeRunPanel.elementRuns", { items: node.items }) : t("workflows.NodeRunPanel.jobInstance")}
      </Text>
      <Table fz="xs" verticalSpacing={2} aria-label={t("workflows.NodeRunPanel.nodeInstances")}>
        <Table.Thead>
          <Table.Tr>
            {node.type === "FOREACH" && <Table.Th>#</Table.Th>}
            <Table.Th>{t("workflows.NodeRunPanel.instance")}</Table.Th>
            <Table.Th>{t("workflows.NodeRunPanel.status")}</Table.Th>
            <Table.Th>{t("workflows.NodeRunPanel.attempt")}</Table.Th>
            <Table.Th>{t("workflows.NodeRunPanel.started")}</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {node.instances.map((i, n) => (
            <Table.Tr key={i.id} bg={i.id === current?.id ? "var(--mantine-color-blue-light)" : undefined}>
              {node.type === "FOREACH" && <Table.Td>{n + 1}</Table.Td>}
              <Table.Td>
                <Anchor component={Link} to={appPath(app, "instances", i.id)} size="xs">
                  #{i.id}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <StatusBadge status={i.status} size="sm" />
              </Table.Td>
              <Table.Td>{i.attempt}</Table.Td>
              <Table.Td>{i.startedTime ? <Timestamp value={i.startedTime} compact /> : "—"}</Table.Td>
              <Table.Td>
                <Button size="compact-xs" variant="subtle" onClick={() => onChoose(i.id)} aria-label={t("workflows.NodeRunPanel.logOfInstance", { id: i.id })}>{t("workflows.NodeRunPanel.log")}</Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

/** What the instance was given: the context as the node started, its upstream results (and element). */
function InstanceInput({ instance }: { instance: NodeInstance }) {
  if (!instance.workflowInput) return null;
  return (
    <details>
      <summary>
        <Text span size="sm" fw={600}>{t("workflows.NodeRunPanel.contextItSawInstance", { id: instance.id })}</Text>
      </summary>
      <Code block mt={4} data-testid="node-input">
        {json(instance.workflowInput)}
      </Code>
    </details>
  );
}

function InstanceLog({ instance }: { instance: NodeInstance }) {
  const live = isUnfinished(instance.status);
  const logs = useInstanceLogs(instance.id, live, instance.attempt);
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>{t("workflows.NodeRunPanel.logOfInstance", { id: instance.id })}</Text>
      {instance.result && (
        <Text size="xs" c="dimmed" lineClamp={3}>{t("workflows.NodeRunPanel.result2", { result: instance.result })}</Text>
      )}
      <LogViewer
        lines={logs.lines}
        live={live && !logs.complete}
        loaded={logs.loaded}
        error={logs.error}
        fileName={`instance-${instance.id}.log`}
      />
    </Stack>
  );
}
