import { NumberInput, Select, SimpleGrid } from "@mantine/core";
import { useQuery } from "urql";
import { PoolNamesQuery } from "../pools/operations";
import { useWatch, type JobFormApi } from "./formApi";
import { t } from "../i18n";

// Every text the field shows, in one place for the console's translation.
const text = {
  pool: t("jobs.PoolField.pool"),
  poolHelp: t("jobs.PoolField.theAppSPool"),
  none: t("jobs.PoolField.none"),
  slots: t("jobs.PoolField.poolSlots"),
  slotsHelp: (max: number | null) => t("jobs.PoolField.slotsEachInstanceTakes", { value: max ? ` (1 to ${max})` : "" }),
  option: (name: string, slots: number) => t("jobs.PoolField.poolSlots", { name, count: slots }),
} as const;

// A pool created on the Pools screen shows here even when the app had none.
const poolsContext = { additionalTypenames: ["Pool"] };

/** The pool a job's instances take slots of, and how many (Pools screen). */
export function PoolField({ form, app }: { form: JobFormApi; app: string }) {
  const [{ data }] = useQuery({ query: PoolNamesQuery, variables: { app }, context: poolsContext });
  const pools = data?.pools ?? [];
  const pool = useWatch(form, "pool", (v) => v.pool);
  const max = pools.find((p) => p.name === pool)?.slots ?? null;
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }}>
      <Select
        label={text.pool}
        description={text.poolHelp}
        placeholder={text.none}
        clearable
        data={pools.map((p) => ({ value: p.name, label: text.option(p.name, p.slots) }))}
        key={form.key("pool")}
        {...form.getInputProps("pool")}
        onChange={(v) => form.setFieldValue("pool", v ?? "")}
      />
      {pool && (
        <NumberInput
          clampBehavior="none"
          label={text.slots}
          description={text.slotsHelp(max)}
          min={1}
          allowDecimal={false}
          key={form.key("poolSlots")}
          {...form.getInputProps("poolSlots")}
        />
      )}
    </SimpleGrid>
  );
}
