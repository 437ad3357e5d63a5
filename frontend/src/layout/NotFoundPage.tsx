import { Anchor, Stack, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { screens } from "../screens";

export function NotFoundPage() {
  const home = screens[0];
  return (
    <Stack>
      <Title order={2}>Page not found</Title>
      <Text>
        Nothing lives at this address.{" "}
        <Anchor component={Link} to={`/${home.path}`}>
          Go to {home.label}
        </Anchor>
        .
      </Text>
    </Stack>
  );
}
