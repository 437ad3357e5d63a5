import { useState } from "react";
import { ActionIcon, Button, Checkbox, Fieldset, Group, NumberInput, Select, Stack, Text, TextInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import type { AlarmRuleType } from "../graphql/graphql";
import { alarmChannelTypes, channelLabels, ruleLabels, thresholds, type AlarmValues } from "./alarmForm";
import { mono, useWatch } from "./formApi";
import { useReadOnly } from "./readOnly";
import { t } from "../i18n";

/** A form with the alarm's values at `alarm`: the job form, a workflow's alarm form. */
type AlarmFormApi = UseFormReturnType<{ alarm: AlarmValues }>;

interface AlarmFieldsProps<V extends { alarm: AlarmValues }> {
  form: UseFormReturnType<V>;
  /** What each rule is called (a workflow's: workflowRuleLabels). */
  labels?: Record<AlarmRuleType, string>;
}

/**
 * When to tell whom: the alarm's rules and channels (README "Alarms"). It
 * shows a row for each rule of the form's values (a job's five, a
 * workflow's four: alarmValues).
 */
export function AlarmFields<V extends { alarm: AlarmValues }>({ form: anyForm, labels = ruleLabels }: AlarmFieldsProps<V>) {
  // Only the `alarm` part of the values is read or written here.
  const form = anyForm as unknown as AlarmFormApi;
  const readOnly = useReadOnly();
  // A list change notifies no watcher of the form: the count is kept here,
  // and `version`, bumped at each add and remove, restarts every row's
  // (uncontrolled) inputs from the form's values.
  const [channels, setChannels] = useState(() => form.getValues().alarm.channels.length);
  const [version, setVersion] = useState(0);

  function addChannel() {
    form.insertListItem("alarm.channels", { type: "WEBHOOK", target: "" });
    setChannels((n) => n + 1);
    setVersion((v) => v + 1);
  }

  function removeChannel(i: number) {
    form.removeListItem("alarm.channels", i);
    setChannels((n) => n - 1);
    setVersion((v) => v + 1);
  }
  const types = form.getValues().alarm.rules.map((r) => r.type);
  return (
    <Fieldset legend={t("jobs.AlarmFields.alarm")}>
      <Stack gap="sm">
        <Text size="sm" c="dimmed">{t("jobs.AlarmFields.alarmWhenEachRule")}</Text>
        {types.map((type, i) => (
          <RuleRow key={type} form={form} type={type} i={i} label={labels[type]} />
        ))}
        <Text size="sm" c="dimmed">{t("jobs.AlarmFields.andTell")}</Text>
        {Array.from({ length: channels }, (_, i) => (
          <Group key={i} align="flex-start" gap="sm" wrap="nowrap">
            <Select
              aria-label={t("jobs.AlarmFields.channelType", { value: i + 1 })}
              data={alarmChannelTypes.map((type) => ({ value: type, label: channelLabels[type] }))}
              allowDeselect={false}
              w={170}
              key={`${form.key(`alarm.channels.${i}.type`)}@${version}`}
              {...form.getInputProps(`alarm.channels.${i}.type`)}
            />
            <TextInput
              aria-label={t("jobs.AlarmFields.channelUrlOrAddress", { value: i + 1 })}
              placeholder={t("jobs.AlarmFields.targetPlaceholder")}
              style={{ flex: 1 }}
              styles={mono}
              key={`${form.key(`alarm.channels.${i}.target`)}@${version}`}
              {...form.getInputProps(`alarm.channels.${i}.target`)}
            />
            {!readOnly && (
              <ActionIcon
                variant="subtle"
                color="red"
                mt={6}
                aria-label={t("jobs.AlarmFields.removeChannel", { value: i + 1 })}
                onClick={() => removeChannel(i)}
              >
                ✕
              </ActionIcon>
            )}
          </Group>
        ))}
        {form.errors["alarm.channels"] && (
          <Text size="sm" c="red">
            {form.errors["alarm.channels"]}
          </Text>
        )}
        {!readOnly && (
          <Button
            variant="light"
            size="xs"
            w="fit-content"
            onClick={addChannel}
          >{t("jobs.AlarmFields.addAChannel")}</Button>
        )}
      </Stack>
    </Fieldset>
  );
}

/** One rule: on or off, and when on, its threshold and silence window. */
function RuleRow({ form, type, i, label }: { form: AlarmFormApi; type: AlarmRuleType; i: number; label: string }) {
  const on = useWatch(form, `alarm.rules.${i}.on`, (v) => v.alarm.rules[i]?.on ?? false);
  const threshold = thresholds[type];
  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <Checkbox
        label={label}
        w={300}
        key={form.key(`alarm.rules.${i}.on`)}
        {...form.getInputProps(`alarm.rules.${i}.on`, { type: "checkbox" })}
      />
      {on && threshold && (
        <NumberInput
          size="xs"
          clampBehavior="none"
          label={threshold.label}
          min={threshold.min}
          allowDecimal={false}
          w={160}
          key={form.key(`alarm.rules.${i}.threshold`)}
          {...form.getInputProps(`alarm.rules.${i}.threshold`)}
        />
      )}
      {on && type !== "RECOVERY" && (
        <NumberInput
          size="xs"
          clampBehavior="none"
          label={t("jobs.AlarmFields.silenceSeconds")}
          min={0}
          allowDecimal={false}
          w={160}
          key={form.key(`alarm.rules.${i}.silenceSec`)}
          {...form.getInputProps(`alarm.rules.${i}.silenceSec`)}
        />
      )}
    </Group>
  );
}
