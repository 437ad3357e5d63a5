import { Badge, Loader } from "@mantine/core";
import type { InstanceStatus } from "../graphql/graphql";
import { statusLabel } from "../components/statusLabel";
import { isUnfinished, statusColors } from "./status";

/** An instance's status in its colour; a spinner while it runs. */
export function StatusBadge({ status, size = "md" }: { status: InstanceStatus; size?: "sm" | "md" | "lg" }) {
  const running = status === "RUNNING";
  return (
    <Badge
      color={statusColors[status]}
      variant={isUnfinished(status) ? "light" : "filled"}
      size={size}
      // A badge's label may shrink with an ellipsis; a status never should,
      // or a narrow table column cuts RUNNING to "RUNNI…".
      miw="max-content"
      leftSection={running ? <Loader size={10} color={statusColors[status]} aria-hidden /> : undefined}
    >
      {statusLabel(status)}
    </Badge>
  );
}
