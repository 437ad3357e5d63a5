import { useState } from "react";
import { Modal } from "@mantine/core";
import { AppSecret } from "./AppSecret";
import { CreateAppForm, type CreatedApp } from "./CreateAppForm";
import { t } from "../i18n";

interface CreateAppDialogProps {
  opened: boolean;
  onClose: () => void;
}

/** The form, then the new app's secret, shown this once. */
export function CreateAppDialog({ opened, onClose }: CreateAppDialogProps) {
  const [created, setCreated] = useState<CreatedApp | null>(null);

  // Every opening starts at the form, even one during the closing fade.
  const [wasOpened, setWasOpened] = useState(opened);
  if (opened !== wasOpened) {
    setWasOpened(opened);
    if (opened) setCreated(null);
  }

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      // Forget the secret once the dialog is gone; forgetting it sooner
      // would flash the form during the fade-out.
      onExitTransitionEnd={() => setCreated(null)}
      title={created ? t("apps.CreateAppDialog.appSecret") : t("apps.CreateAppDialog.createApp")}
      size="lg"
      // While the secret shows, only Done or the close button dismisses it,
      // so a stray click or key press does not lose it.
      closeOnClickOutside={!created}
      closeOnEscape={!created}
    >
      {created ? <AppSecret created={created} onDone={onClose} /> : <CreateAppForm onCreated={setCreated} onCancel={onClose} />}
    </Modal>
  );
}
