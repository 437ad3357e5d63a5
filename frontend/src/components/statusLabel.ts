import { t } from "../i18n";

/**
 * What a status is called on screen. English shows the API's code
 * (RUNNING), as the docs and logs name it; Chinese a word (运行中).
 */
const labels: Record<string, () => string> = {
  WAITING: () => t("status.WAITING"),
  DISPATCHED: () => t("status.DISPATCHED"),
  RUNNING: () => t("status.RUNNING"),
  PAUSED: () => t("status.PAUSED"),
  SUCCEEDED: () => t("status.SUCCEEDED"),
  FAILED: () => t("status.FAILED"),
  STOPPED: () => t("status.STOPPED"),
  CANCELED: () => t("status.CANCELED"),
  SKIPPED: () => t("status.SKIPPED"),
  AWAITING_APPROVAL: () => t("status.AWAITING_APPROVAL"),
};

/** The status's label, or the code itself for one this console does not know yet. */
export function statusLabel(status: string): string {
  return labels[status]?.() ?? status;
}
