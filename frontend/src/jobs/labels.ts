import type {
  DispatchStrategy,
  ExecutionMode,
  JobOverlapPolicy,
  MisfirePolicy,
  ProcessorType,
  ScheduleType,
} from "../graphql/graphql";
import { t } from "../i18n";

/** An enum value with what the console calls it and what it means. */
export interface Choice<T extends string> {
  value: T;
  label: string;
  description: string;
}

export const scheduleTypes: readonly Choice<ScheduleType>[] = [
  { value: "CRON", label: t("jobs.labels.cron"), description: t("jobs.labels.aQuartzCronExpression") },
  { value: "FIXED_RATE", label: t("jobs.labels.fixedRate"), description: t("jobs.labels.everyIntervalHoweverLong") },
  { value: "FIXED_DELAY", label: t("jobs.labels.fixedDelay"), description: t("jobs.labels.theIntervalAfterThe") },
  { value: "API", label: t("jobs.labels.apiOnly"), description: t("jobs.labels.onlyWhenRunBy") },
  { value: "WORKFLOW", label: t("jobs.labels.workflowNode"), description: t("jobs.labels.onlyAsANode") },
];

export const executionModes: readonly Choice<ExecutionMode>[] = [
  { value: "STANDALONE", label: t("jobs.labels.standalone"), description: t("jobs.labels.oneTaskOnOne") },
  { value: "BROADCAST", label: t("jobs.labels.broadcast"), description: t("jobs.labels.oneTaskOnEvery") },
  { value: "MAP", label: t("jobs.labels.map"), description: t("jobs.labels.aRootTaskEmits") },
  { value: "MAP_REDUCE", label: t("jobs.labels.mapReduce"), description: t("jobs.labels.mapThenReduceOver") },
];

export const processorTypes: readonly Choice<ProcessorType>[] = [
  { value: "SHELL", label: t("jobs.labels.shellScript"), description: t("jobs.labels.runByBinSh") },
  { value: "PYTHON", label: t("jobs.labels.pythonScript"), description: t("jobs.labels.runByPython3") },
  { value: "HTTP", label: t("jobs.labels.httpRequest"), description: t("jobs.labels.sentByTheWorker") },
  { value: "GO", label: t("jobs.labels.goProcessor"), description: t("jobs.labels.registeredByNameIn") },
];

export const dispatchStrategies: readonly Choice<DispatchStrategy>[] = [
  { value: "HEALTH_FIRST", label: t("jobs.labels.healthiestFirst"), description: t("jobs.labels.mostFreeSlotsLeast") },
  { value: "RANDOM", label: t("jobs.labels.random"), description: t("jobs.labels.anyQualifyingWorker") },
  { value: "ROUND_ROBIN", label: t("jobs.labels.roundRobin"), description: t("jobs.labels.eachQualifyingWorkerIn") },
  {
    value: "CONSISTENT_HASH",
    label: t("jobs.labels.consistentHash"),
    description: t("jobs.labels.theSameKeyTo"),
  },
  { value: "LEAST_RECENTLY_USED", label: t("jobs.labels.leastRecentlyUsed"), description: t("jobs.labels.theWorkerPickedLongest") },
];

export const overlapPolicies: readonly Choice<JobOverlapPolicy>[] = [
  { value: "CANCEL", label: t("jobs.labels.cancel"), description: t("jobs.labels.aFireOverMax") },
  {
    value: "QUEUE",
    label: t("jobs.labels.queue"),
    description: t("jobs.labels.itWaitsAndStarts"),
  },
  { value: "REPLACE", label: t("jobs.labels.replace"), description: t("jobs.labels.theOldestRunningInstance") },
];

export const misfirePolicies: readonly Choice<MisfirePolicy>[] = [
  { value: "FIRE_ONCE", label: t("jobs.labels.fireOnce"), description: t("jobs.labels.runOnceForThe") },
  { value: "SKIP", label: t("jobs.labels.skip"), description: t("jobs.labels.skipFiresMissedWhile") },
  { value: "FIRE_ALL", label: t("jobs.labels.fireAll"), description: t("jobs.labels.runEveryMissedFire") },
];

/** The label of an enum value, or the value itself if it is new. */
export function labelOf<T extends string>(choices: readonly Choice<T>[], value: T): string {
  return choices.find((c) => c.value === value)?.label ?? value;
}

/** Select data from choices. */
export function selectData<T extends string>(choices: readonly Choice<T>[]) {
  return choices.map(({ value, label }) => ({ value, label }));
}

/** Whether a schedule type fires by itself, from an expression. */
export function hasExpression(type: ScheduleType): boolean {
  return type === "CRON" || type === "FIXED_RATE" || type === "FIXED_DELAY";
}
