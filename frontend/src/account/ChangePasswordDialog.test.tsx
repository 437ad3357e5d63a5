import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Provider } from "urql";
import { graphQLError, mockClient, renderWithMantine } from "../test/render";
import { ChangePasswordDialog } from "./ChangePasswordDialog";

function setup() {
  const onClose = vi.fn();
  const mock = mockClient({
    mutation: ({ variables }) =>
      variables["oldPassword"] === "right-password"
        ? { data: { changePassword: true }, error: undefined }
        : { data: undefined, error: graphQLError("is not your current password", "BAD_INPUT", "oldPassword") },
  });
  renderWithMantine(
    <Provider value={mock.asClient}>
      <ChangePasswordDialog opened onClose={onClose} />
    </Provider>,
  );
  return { onClose, mock };
}

async function fill(current: string, next: string, repeat: string) {
  const user = userEvent.setup();
  const dialog = await screen.findByRole("dialog", { name: "Change password" });
  const fields = {
    current: screen.getByLabelText(/^Current password/),
    next: screen.getByLabelText(/^New password/),
    repeat: screen.getByLabelText(/^Repeat the new password/),
  };
  for (const f of Object.values(fields)) await user.clear(f);
  await user.type(fields.current, current);
  await user.type(fields.next, next);
  await user.type(fields.repeat, repeat);
  await user.click(screen.getByRole("button", { name: "Change password" }));
  return { dialog, fields };
}

describe("changing the password", () => {
  it("checks that the new password was typed the same twice before sending it", async () => {
    const { mock } = setup();
    const { fields } = await fill("right-password", "new-password-1", "new-password-2");
    expect(fields.repeat).toHaveAttribute("aria-invalid", "true");
    expect(fields.repeat).toHaveAccessibleDescription(/does not match/);
    expect(mock.mutated("ChangePassword")).toHaveLength(0);
  });

  it("shows a wrong current password at its field, and closes once changed", async () => {
    const { onClose, mock } = setup();
    const { fields } = await fill("wrong", "new-password-1", "new-password-1");
    await waitFor(() => expect(fields.current).toHaveAttribute("aria-invalid", "true"));
    expect(fields.current).toHaveAccessibleDescription(/is not your current password/);
    expect(onClose).not.toHaveBeenCalled();

    await fill("right-password", "new-password-1", "new-password-1");
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(mock.mutated("ChangePassword").at(-1)?.variables).toEqual({
      oldPassword: "right-password",
      newPassword: "new-password-1",
    });
  });
});
