import type { ReactElement } from "react";
import { Anchor, Text, Tooltip, type AnchorProps, type TextProps } from "@mantine/core";
import { Link } from "react-router";

/** The whole text in a tooltip over what shows it cut. */
function Whole({ text, children }: { text: string; children: ReactElement }) {
  return (
    <Tooltip label={text} openDelay={400} multiline maw={480} style={{ overflowWrap: "anywhere" }}>
      {children}
    </Tooltip>
  );
}

/**
 * A name that may be long (a job's can have 128 characters, with no space
 * to wrap at): cut with an ellipsis where its box ends, whole in a tooltip
 * (and to screen readers, which read the text, not the cut). It never
 * runs past its box into what is next to it.
 */
export function Truncated({ text, ...props }: TextProps & { text: string }) {
  return (
    <Whole text={text}>
      <Text component="span" display="block" maw="100%" inherit {...props} truncate="end">
        {text}
      </Text>
    </Whole>
  );
}

/** A link whose text is a long name, cut as Truncated is. */
export function TruncatedLink({ text, to, ...props }: AnchorProps & { text: string; to: string }) {
  return (
    <Whole text={text}>
      <Anchor component={Link} to={to} display="block" maw="100%" {...props} truncate="end">
        {text}
      </Anchor>
    </Whole>
  );
}
