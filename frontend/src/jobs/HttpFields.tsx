import { useState } from "react";
import { ActionIcon, Button, Group, NumberInput, Select, SimpleGrid, Stack, Table, Text, TextInput, Textarea } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { mono, type JobFormApi } from "./formApi";
import { httpMethods } from "./jobForm";
import { useReadOnly } from "./readOnly";
import { t } from "../i18n";

/** An HTTP processor's request: method, URL, headers, body, expected status, timeout. */
/** A URL, not prose. */
const urlExample = "https://example.com/hooks/sync";

export function HttpFields({ form }: { form: JobFormApi }) {
  const headersId = useId();
  const readOnly = useReadOnly();
  const [headerCount, setHeaderCount] = useState(() => form.getValues().http.headers.length);
  // Bumped when a header is added or removed, so every row's inputs start
  // again from the form's values (they are uncontrolled).
  const [version, setVersion] = useState(0);

  function add() {
    form.insertListItem("http.headers", { name: "", value: "" });
    setHeaderCount((n) => n + 1);
    setVersion((v) => v + 1);
  }

  function remove(index: number) {
    form.removeListItem("http.headers", index);
    setHeaderCount((n) => n - 1);
    setVersion((v) => v + 1);
  }

  return (
    <Stack gap="sm">
      <Group align="flex-start" wrap="nowrap">
        <Select
          label={t("jobs.HttpFields.method")}
          data={httpMethods}
          allowDeselect={false}
          w={130}
          key={form.key("http.method")}
          {...form.getInputProps("http.method")}
        />
        <TextInput
          label="URL"
          placeholder={urlExample}
          required
          style={{ flex: 1 }}
          spellCheck={false}
          key={form.key("http.url")}
          {...form.getInputProps("http.url")}
        />
      </Group>
      <Stack gap={4}>
        <Text size="sm" fw={500} id={headersId}>{t("jobs.HttpFields.headers")}</Text>
        {headerCount > 0 && (
          <Table withRowBorders={false} verticalSpacing={4} horizontalSpacing={4} aria-labelledby={headersId}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th fz="xs" fw={500}>{t("jobs.HttpFields.name")}</Table.Th>
                <Table.Th fz="xs" fw={500}>{t("jobs.HttpFields.value")}</Table.Th>
                <Table.Th w={40} />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {Array.from({ length: headerCount }, (_, i) => (
                <Table.Tr key={`${version}-${i}`}>
                  <Table.Td>
                    <TextInput
                      aria-label={t("jobs.HttpFields.headerName", { value: i + 1 })}
                      placeholder={t("jobs.HttpFields.authorization")}
                      spellCheck={false}
                      {...form.getInputProps(`http.headers.${i}.name`)}
                    />
                  </Table.Td>
                  <Table.Td>
                    <TextInput
                      aria-label={t("jobs.HttpFields.headerValue", { value: i + 1 })}
                      spellCheck={false}
                      {...form.getInputProps(`http.headers.${i}.value`)}
                    />
                  </Table.Td>
                  <Table.Td>
                    {!readOnly && (
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={t("jobs.HttpFields.removeHeader", { value: i + 1 })}
                        onClick={() => remove(i)}
                      >
                        ×
                      </ActionIcon>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {!readOnly && (
          <Button variant="light" size="xs" w="fit-content" onClick={add}>{t("jobs.HttpFields.addHeader")}</Button>
        )}
      </Stack>
      <Textarea
        label={t("jobs.HttpFields.body")}
        autosize
        minRows={2}
        maxRows={12}
        styles={mono}
        spellCheck={false}
        key={form.key("http.body")}
        {...form.getInputProps("http.body")}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <NumberInput
          clampBehavior="none"
          label={t("jobs.HttpFields.expectedStatus")}
          description={t("jobs.HttpFields.blankAny2xxSucceeds")}
          min={100}
          max={599}
          allowDecimal={false}
          key={form.key("http.expectStatus")}
          {...form.getInputProps("http.expectStatus")}
        />
        <NumberInput
          clampBehavior="none"
          label={t("jobs.HttpFields.requestTimeoutMs")}
          description={t("jobs.HttpFields.blankTheInstanceS")}
          min={0}
          allowDecimal={false}
          key={form.key("http.timeoutMs")}
          {...form.getInputProps("http.timeoutMs")}
        />
      </SimpleGrid>
    </Stack>
  );
}
