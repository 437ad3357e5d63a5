import type {
  DispatchStrategy,
  ExecutionMode,
  JobOverlapPolicy,
  MisfirePolicy,
  ProcessorType,
  ScheduleType,
} from "../graphql/graphql";

/** An enum value with what the console calls it and what it means. */
export interface Choice<T extends string> {
  value: T;
  label: string;
  description: string;
}

export const scheduleTypes: readonly Choice<ScheduleType>[] = [
  { value: "CRON", label: "Cron", description: "A Quartz cron expression with seconds, in the job's time zone" },
  { value: "FIXED_RATE", label: "Fixed rate", description: "Every interval, however long runs take" },
  { value: "FIXED_DELAY", label: "Fixed delay", description: "The interval after the previous run ended" },
  { value: "API", label: "API only", description: "Only when run by hand or through the API" },
  { value: "WORKFLOW", label: "Workflow node", description: "Only as a node of a workflow" },
];

export const executionModes: readonly Choice<ExecutionMode>[] = [
  { value: "STANDALONE", label: "Standalone", description: "One task on one worker" },
  { value: "BROADCAST", label: "Broadcast", description: "One task on every selected worker" },
  { value: "MAP", label: "Map", description: "A root task emits subtasks, spread over workers (GO only)" },
  { value: "MAP_REDUCE", label: "Map-reduce", description: "Map, then reduce over every subtask's result (GO only)" },
];

export const processorTypes: readonly Choice<ProcessorType>[] = [
  { value: "SHELL", label: "Shell script", description: "Run by /bin/sh on the worker" },
  { value: "PYTHON", label: "Python script", description: "Run by Python 3 on the worker" },
  { value: "HTTP", label: "HTTP request", description: "Sent by the worker" },
  { value: "GO", label: "Go processor", description: "Registered by name in a Go worker" },
];

export const dispatchStrategies: readonly Choice<DispatchStrategy>[] = [
  { value: "HEALTH_FIRST", label: "Healthiest first", description: "Most free slots, least load per core" },
  { value: "RANDOM", label: "Random", description: "Any qualifying worker" },
  { value: "ROUND_ROBIN", label: "Round robin", description: "Each qualifying worker in turn" },
  {
    value: "CONSISTENT_HASH",
    label: "Consistent hash",
    description: 'The same key to the same worker: the run params\' "key" (JSON), else the job',
  },
  { value: "LEAST_RECENTLY_USED", label: "Least recently used", description: "The worker picked longest ago" },
];

export const overlapPolicies: readonly Choice<JobOverlapPolicy>[] = [
  { value: "CANCEL", label: "Cancel", description: "A fire over max instances is recorded canceled" },
  {
    value: "QUEUE",
    label: "Queue",
    description: "It waits and starts when a running instance ends, in fire order (at most max queued wait)",
  },
  { value: "REPLACE", label: "Replace", description: "The oldest running instance is stopped and the new fire starts" },
];

export const misfirePolicies: readonly Choice<MisfirePolicy>[] = [
  { value: "FIRE_ONCE", label: "Fire once", description: "Run once for the latest missed fire, then continue" },
  { value: "SKIP", label: "Skip", description: "Skip fires missed while no server could run them" },
  { value: "FIRE_ALL", label: "Fire all", description: "Run every missed fire (at most 100 per job)" },
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
