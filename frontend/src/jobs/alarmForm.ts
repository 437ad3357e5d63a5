// The alarm part of the job form and of a workflow's Alarms tab: one row
// per rule type the subject takes (on or off, with its threshold and
// silence window) and a list of channels, converted from a job's or a
// workflow's alarm and to AlarmInput (README "Alarms").
import type { AlarmChannelType, AlarmInput, AlarmRuleType } from "../graphql/graphql";
import type { NumberValue } from "./jobForm";
import { t } from "../i18n";

export const alarmRuleTypes: AlarmRuleType[] = ["FAILURE", "CONSECUTIVE_FAILURES", "TIMEOUT", "START_LATE", "RECOVERY"];

/** The rules a workflow takes: START_LATE is for jobs (the server refuses it for a workflow). */
export const workflowAlarmRuleTypes: AlarmRuleType[] = alarmRuleTypes.filter((type) => type !== "START_LATE");

export const alarmChannelTypes: AlarmChannelType[] = ["WEBHOOK", "SLACK", "FEISHU", "DINGTALK", "WECOM", "EMAIL"];

/** What each rule is called in the console. */
export const ruleLabels: Record<AlarmRuleType, string> = {
  FAILURE: t("jobs.alarmForm.anInstanceFails"),
  CONSECUTIVE_FAILURES: t("jobs.alarmForm.nInstancesInA"),
  TIMEOUT: t("jobs.alarmForm.anInstanceTimesOut"),
  START_LATE: t("jobs.alarmForm.anInstanceStartsLate"),
  RECOVERY: t("jobs.alarmForm.itRecoversFirstSuccess"),
};

/** What each rule a workflow takes is called: its instances are runs. */
export const workflowRuleLabels: Record<AlarmRuleType, string> = {
  ...ruleLabels,
  FAILURE: t("jobs.alarmForm.aRunFails"),
  CONSECUTIVE_FAILURES: t("jobs.alarmForm.nRunsInA"),
  TIMEOUT: t("jobs.alarmForm.aRunTimesOut"),
};

export const channelLabels: Record<AlarmChannelType, string> = {
  WEBHOOK: t("jobs.alarmForm.webhookJson"),
  SLACK: t("jobs.alarmForm.slack"),
  FEISHU: t("jobs.alarmForm.feishu"),
  DINGTALK: t("jobs.alarmForm.dingtalk"),
  WECOM: t("jobs.alarmForm.wecom"),
  EMAIL: t("jobs.alarmForm.email"),
};

/** Rules that take a threshold, with what it means. */
export const thresholds: Partial<Record<AlarmRuleType, { label: string; min: number; initial: number }>> = {
  CONSECUTIVE_FAILURES: { label: t("jobs.alarmForm.nFailuresInA"), min: 2, initial: 3 },
  START_LATE: { label: t("jobs.alarmForm.laterThanMs"), min: 1, initial: 60_000 },
};

export interface AlarmRuleValues {
  type: AlarmRuleType;
  on: boolean;
  threshold: NumberValue;
  silenceSec: NumberValue;
}

export interface AlarmChannelValues {
  type: AlarmChannelType;
  target: string;
}

export interface AlarmValues {
  /** One per type the subject takes, in alarmRuleTypes' order. */
  rules: AlarmRuleValues[];
  channels: AlarmChannelValues[];
}

interface AlarmLike {
  rules: readonly { type: AlarmRuleType; threshold: number; silenceSec: number }[];
  channels: readonly { type: AlarmChannelType; target: string }[];
}

/**
 * The form's alarm values for a job's alarm (none: all off), or a
 * workflow's with `types` workflowAlarmRuleTypes.
 */
export function alarmValues(alarm?: AlarmLike, types: readonly AlarmRuleType[] = alarmRuleTypes): AlarmValues {
  return {
    rules: types.map((type) => {
      const r = alarm?.rules.find((x) => x.type === type);
      return {
        type,
        on: r !== undefined,
        threshold: r && thresholds[type] ? r.threshold : (thresholds[type]?.initial ?? ""),
        silenceSec: r?.silenceSec ?? 0,
      };
    }),
    channels: (alarm?.channels ?? []).map((c) => ({ type: c.type, target: c.target })),
  };
}

function num(v: NumberValue): number | null {
  if (typeof v === "number") return v;
  if (v.trim() === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** The AlarmInput the values define. */
export function toAlarmInput(v: AlarmValues): AlarmInput {
  return {
    rules: v.rules
      .filter((r) => r.on)
      .map((r) => ({
        type: r.type,
        threshold: thresholds[r.type] ? num(r.threshold) : null,
        silenceSec: r.type === "RECOVERY" ? 0 : (num(r.silenceSec) ?? 0),
      })),
    channels: v.channels.map((c) => ({ type: c.type, target: c.target.trim() })),
  };
}

/**
 * The form path of a server error on `alarm.rules[i]…` (i counts the rules
 * sent, which are the rows switched on) or `alarm.channels[i]…`.
 */
export function alarmFieldPath(field: string, v: AlarmValues): string | null {
  const rule = /^alarm\.rules\[(\d+)\](?:\.(\w+))?$/.exec(field);
  if (rule) {
    const on = v.rules.map((r, i) => (r.on ? i : -1)).filter((i) => i >= 0);
    const row = on[Number(rule[1])];
    if (row === undefined) return null;
    const part = rule[2] === "threshold" || rule[2] === "silenceSec" ? rule[2] : "on";
    return `alarm.rules.${row}.${part}`;
  }
  const channel = /^alarm\.channels\[(\d+)\]/.exec(field);
  if (channel) return `alarm.channels.${channel[1]}.target`;
  if (field.startsWith("alarm.")) return "alarm.channels";
  return null;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s.trim());
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/** Checks the alarm values as the server does; sets errors by form path. */
export function validateAlarm(v: AlarmValues, set: (path: string, message: string) => void) {
  v.rules.forEach((r, i) => {
    if (!r.on) return;
    const th = thresholds[r.type];
    if (th) {
      const n = num(r.threshold);
      if (n === null || !Number.isInteger(n) || n < th.min) set(`alarm.rules.${i}.threshold`, t("jobs.alarmForm.mustBeAWhole", { min: th.min }));
    }
    const s = num(r.silenceSec);
    if (s !== null && (!Number.isInteger(s) || s < 0)) set(`alarm.rules.${i}.silenceSec`, t("jobs.alarmForm.mustNotBeNegative"));
  });
  const recovery = v.rules.findIndex((r) => r.type === "RECOVERY");
  const failure = v.rules.some((r) => r.on && r.type !== "RECOVERY" && r.type !== "START_LATE");
  if (v.rules[recovery]?.on && !failure) {
    set(`alarm.rules.${recovery}.on`, t("jobs.alarmForm.followsAnAlarmOf"));
  }
  v.channels.forEach((c, i) => {
    const target = c.target.trim();
    if (c.type === "EMAIL") {
      if (!target.includes("@")) set(`alarm.channels.${i}.target`, t("jobs.alarmForm.isNotAnEmail", { target: target }));
    } else if (!isHttpUrl(target)) {
      set(`alarm.channels.${i}.target`, t("jobs.alarmForm.isNotAnHttp", { target: target }));
    }
  });
}

/**
 * A channel's target as pages show it: a URL's scheme and host only (chat
 * URLs carry their key in the path or query; the form shows it whole to
 * editors), an email address as it is.
 */
export function shownTarget(target: string): string {
  try {
    const u = new URL(target);
    if (u.protocol !== "http:" && u.protocol !== "https:") return target;
    return u.pathname === "/" && u.search === "" ? u.origin : `${u.origin}/…`;
  } catch {
    return target;
  }
}
