import { ActionIcon, Button, Checkbox, Fieldset, Group, NumberInput, Select, Stack, Text, TextInput } from "@mantine/core";
import type { AlarmRuleType } from "../graphql/graphql";
import { alarmChannelTypes, channelLabels, ruleLabels, thresholds } from "./alarmForm";
import { mono, useWatch, type JobFormApi } from "./formApi";

/** When to tell whom: the alarm's rules and channels (README "Alarms"). */
export function AlarmFields({ form }: { form: JobFormApi }) {
  const channels = useWatch(form, "alarm.channels", (v) => v.alarm.channels.length);
  const types = form.getValues().alarm.rules.map((r) => r.type);
  return (
    <Fieldset legend="Alarm">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          Alarm when… (each rule keeps quiet for its silence window after it alarmed; a recovery ends the storm)
        </Text>
        {types.map((type, i) => (
          <RuleRow key={type} form={form} type={type} i={i} />
        ))}
        <Text size="sm" c="dimmed">
          …and tell:
        </Text>
        {Array.from({ length: channels }, (_, i) => (
          <Group key={i} align="flex-start" gap="sm" wrap="nowrap">
            <Select
              aria-label={`Channel ${i + 1} type`}
              data={alarmChannelTypes.map((t) => ({ value: t, label: channelLabels[t] }))}
              allowDeselect={false}
              w={170}
              key={form.key(`alarm.channels.${i}.type`)}
              {...form.getInputProps(`alarm.channels.${i}.type`)}
            />
            <TextInput
              aria-label={`Channel ${i + 1} URL or address`}
              placeholder="https://… (incoming webhook), or an email address"
              style={{ flex: 1 }}
              styles={mono}
              key={form.key(`alarm.channels.${i}.target`)}
              {...form.getInputProps(`alarm.channels.${i}.target`)}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              mt={6}
              aria-label={`Remove channel ${i + 1}`}
              onClick={() => form.removeListItem("alarm.channels", i)}
            >
              ✕
            </ActionIcon>
          </Group>
        ))}
        {form.errors["alarm.channels"] && (
          <Text size="sm" c="red">
            {form.errors["alarm.channels"]}
          </Text>
        )}
        <Button
          variant="light"
          size="xs"
          w="fit-content"
          onClick={() => form.insertListItem("alarm.channels", { type: "WEBHOOK", target: "" })}
        >
          Add a channel
        </Button>
      </Stack>
    </Fieldset>
  );
}

/** One rule: on or off, and when on, its threshold and silence window. */
function RuleRow({ form, type, i }: { form: JobFormApi; type: AlarmRuleType; i: number }) {
  const on = useWatch(form, `alarm.rules.${i}.on`, (v) => v.alarm.rules[i]?.on ?? false);
  const threshold = thresholds[type];
  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <Checkbox
        label={ruleLabels[type]}
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
          label="Silence (seconds)"
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
