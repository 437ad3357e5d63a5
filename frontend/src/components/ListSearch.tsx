import { useState, type ReactNode } from "react";
import { Text, TextInput } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { Link, useSearchParams } from "react-router";
import { withoutCursor } from "./CursorPager";
import { t } from "../i18n";

/** The query parameter a list's search is kept in. */
const searchParam = "q";

/**
 * A list's search by name, kept in the URL (?q=), so it can be linked and
 * survives a reload: `search` is what the list asks the server for, and
 * the field's props set it once typing pauses, back at the first page.
 */
export function useListSearch() {
  const [params, setParams] = useSearchParams();
  const search = params.get(searchParam) ?? "";
  const [typed, setTyped] = useState(search);
  const apply = useDebouncedCallback((value: string) => {
    setParams(
      (p) => {
        // A new search starts again at the first page.
        withoutCursor(p);
        if (value.trim()) p.set(searchParam, value.trim());
        else p.delete(searchParam);
        return p;
      },
      { replace: true },
    );
  }, 300);
  function onType(value: string) {
    setTyped(value);
    apply(value);
  }
  return { search, typed, onType };
}

/** The search field of a list of named things (jobs, workflows). */
export function ListSearchField({ label, placeholder, typed, onType }: {
  label: string;
  placeholder: string;
  typed: string;
  onType: (value: string) => void;
}) {
  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      type="search"
      maw={360}
      value={typed}
      onChange={(e) => onType(e.currentTarget.value)}
    />
  );
}

interface NoneFoundProps {
  app: string;
  /** What the list holds. */
  kind: "job" | "workflow";
  search: string;
  /** Where a new one is created; null: the caller may not create one. */
  createPath: string | null;
}

/** A list's empty state: nothing matches the search, or the app has none yet (and how to make one). */
export function NoneFound({ app, kind, search, createPath }: NoneFoundProps): ReactNode {
  if (search) return <>{(kind === "job" ? t("components.ListSearch.noneMatch.job", { search }) : t("components.ListSearch.noneMatch.workflow", { search }))}</>;
  return (
    <>{(kind === "job" ? t("components.ListSearch.noneYet.job", { app }) : t("components.ListSearch.noneYet.workflow", { app }))}{createPath && (
        <>
          {" "}
          <Text component={Link} to={createPath} c="blue" inherit>{t("components.ListSearch.createOne")}</Text>
          .
        </>
      )}
    </>
  );
}
