import { Text, Timeline } from "@mantine/core";
import { durationBetween, formatDuration } from "../components/format";
import { Timestamp } from "../components/Timestamp";
import type { InstanceFieldsFragment } from "../graphql/graphql";
import { statusColors } from "./status";
import { t } from "../i18n";

interface Step {
  title: string;
  time: string | null;
  /** What the gap since the step before means, e.g. "late by". */
  gapLabel?: string;
}

/** Expected trigger → triggered → started → finished, with the time between each. */
export function InstanceTimeline({ instance }: { instance: InstanceFieldsFragment }) {
  const steps: Step[] = [
    { title: t("instances.InstanceTimeline.expectedTrigger"), time: instance.expectedTriggerTime },
    { title: t("instances.InstanceTimeline.triggered"), time: instance.actualTriggerTime, gapLabel: t("instances.InstanceTimeline.lateBy") },
    { title: t("instances.InstanceTimeline.started"), time: instance.startedTime, gapLabel: "after" },
    { title: instance.finishedTime ? t("instances.InstanceTimeline.finished", { status: instance.status }) : t("instances.InstanceTimeline.finished2"), time: instance.finishedTime, gapLabel: "took" },
  ];
  // An API or retry run has no expected time; it starts at the trigger.
  const shown = instance.expectedTriggerTime ? steps : steps.slice(1);
  const reached = shown.filter((s) => s.time).length - 1;

  return (
    <Timeline active={reached} bulletSize={16} lineWidth={2} color={statusColors[instance.status]}>
      {shown.map((step, i) => {
        const previous = shown[i - 1]?.time ?? null;
        const gap = step.time && previous ? durationBetween(previous, step.time) : null;
        return (
          <Timeline.Item key={step.title} title={step.title}>
            {step.time ? (
              <>
                <Timestamp value={step.time} />
                {gap !== null && step.gapLabel && (
                  <Text size="xs" c="dimmed">
                    {step.gapLabel} {formatDuration(gap)}
                  </Text>
                )}
              </>
            ) : (
              <Text size="sm" c="dimmed">{t("instances.InstanceTimeline.notYet")}</Text>
            )}
          </Timeline.Item>
        );
      })}
    </Timeline>
  );
}
