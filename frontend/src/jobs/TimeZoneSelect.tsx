import { useMemo } from "react";
import { Select, type SelectProps } from "@mantine/core";
import { t } from "../i18n";

/** The IANA zones this browser knows, UTC first. */
function knownZones(): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf("timeZone");
  } catch {
    // An old browser: UTC and whatever the job has.
  }
  return ["UTC", ...zones.filter((z) => z !== "UTC")];
}

const zones = knownZones();

/** A searchable choice of IANA time zone. */
export function TimeZoneSelect(props: Omit<SelectProps, "data">) {
  const current = props.value ?? props.defaultValue ?? null;
  // A zone the server accepts but this browser does not list stays choosable.
  const data = useMemo(() => (current && !zones.includes(current) ? [current, ...zones] : zones), [current]);
  return (
    <Select
      {...props}
      data={data}
      searchable
      allowDeselect={false}
      nothingFoundMessage={t("jobs.TimeZoneSelect.noSuchTimeZone")}
      maxDropdownHeight={280}
    />
  );
}
