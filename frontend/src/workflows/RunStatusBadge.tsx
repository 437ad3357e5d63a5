import { Badge, Loader } from "@mantine/core";
import type { WorkflowInstanceStatus } from "../graphql/graphql";
import { statusLabel } from "../components/statusLabel";
import { isRunActive, runStatusColors } from "./status";

/** A workflow run's status in its colour; a spinner while it runs. */
export function RunStatusBadge({ status, size = "md" }: { status: WorkflowInstanceStatus; size?: "sm" | "md" | "lg" }) {
  return (
    <Badge
      color={runStatusColors[status]}
      variant={isRunActive(status) ? "light" : "filled"}
      size={size}
      leftSection={status === "RUNNING" ? <Loader size={10} color={runStatusColors[status]} aria-hidden /> : undefined}
    >
      {statusLabel(status)}
    </Badge>
  );
}
