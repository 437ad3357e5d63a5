/**
 * Every text the pools screen and its dialog show, in one place so the
 * console's translation (i18next, en and zh-CN) takes them over whole.
 */
import { t } from "../i18n";

export const poolText = {
  title: t("pools.strings.pools"),
  description:
    t("pools.strings.namedSlotsThatJobs"),
  newPool: t("pools.strings.p_newPool"),
  loading: t("pools.strings.loadingPools"),
  empty: (app: string) => t("pools.strings.appHasNoPools", { app: app }),
  used: (used: number, slots: number) => t("pools.strings.ofInUse", { used, count: slots }),
  mutex: t("pools.strings.p_mutex"),
  holders: t("pools.strings.p_holders"),
  queue: t("pools.strings.p_queue"),
  noHolders: t("pools.strings.p_noHolders"),
  noQueue: t("pools.strings.p_noQueue"),
  namedBy: t("pools.strings.p_namedBy"),
  noJob: t("pools.strings.p_noJob"),
  slotsTaken: (n: number | null | undefined) => t("pools.strings.slots", { count: n ?? 1 }),
  position: (n: number) => `#${n}`,
  instance: (id: string) => t("pools.strings.instance", { id: id }),
  since: t("pools.strings.p_since"),
  edit: t("pools.strings.p_edit"),
  show: t("pools.strings.p_show"),
  delete: t("pools.strings.p_delete"),
  editLabel: (name: string) => t("pools.strings.edit", { name: name }),
  showLabel: (name: string) => t("pools.strings.show", { name: name }),
  deleteLabel: (name: string) => t("pools.strings.delete", { name: name }),
  deleteTitle: t("pools.strings.p_deleteTitle"),
  deleteConfirm: t("pools.strings.p_deleteConfirm"),
  deleteBody: t("pools.strings.p_deleteBody"),
  deleted: (name: string) => t("pools.strings.deletedPool", { name: name }),
  liveDown: (s: number) => t("pools.strings.liveUpdatesInterruptedRefreshing", { s: s }),
  // The dialog.
  newTitle: t("pools.strings.p_newTitle"),
  editTitle: (name: string) => t("pools.strings.edit", { name: name }),
  showTitle: (name: string) => t("pools.strings.pool", { name: name }),
  name: t("pools.strings.p_name"),
  nameHelp: t("pools.strings.p_nameHelp"),
  descriptionLabel: t("pools.strings.p_descriptionLabel"),
  descriptionPlaceholder: t("pools.strings.p_descriptionPlaceholder"),
  slots: t("pools.strings.p_slots"),
  slotsHelp: t("pools.strings.p_slotsHelp"),
  couldNot: (editing: boolean) => (editing ? t("pools.strings.couldNotSave") : t("pools.strings.couldNotCreate")),
  cancel: t("pools.strings.p_cancel"),
  close: t("pools.strings.p_close"),
  save: t("pools.strings.p_save"),
  create: t("pools.strings.p_create"),
  saved: (editing: boolean, name: string) => (editing ? t("pools.strings.savedPool", { name }) : t("pools.strings.createdPool", { name })),
} as const;
