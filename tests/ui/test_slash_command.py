"""The composer's `/server:prompt name=value` read from its text, and resource templates filled in."""

from __future__ import annotations

from domain.mcp_catalog import McpResourceTemplate
from ui.mcp_links import resource_links
from ui.slash_command import SlashPart, SlashQuery, slash_command, slash_query


def test_the_word_under_the_cursor_is_a_prompt_an_argument_name_or_its_value() -> None:
    assert slash_query("/no", 3) == SlashQuery(SlashPart.PROMPT, "no", 1)
    text = "/notes:review language=py"
    assert slash_query(text, len(text)) == SlashQuery(SlashPart.VALUE, "py", len(text) - 2, "notes:review",
                                                      "language", {})
    text = "/notes:review language=perl fo"
    assert slash_query(text, len(text)) == SlashQuery(SlashPart.NAME, "fo", len(text) - 2, "notes:review",
                                                      given={"language": "perl"})
    assert slash_query("hello /x", 8) is None  # only a text that starts with the slash
    assert slash_query("/etc/hosts is odd", 17) is None  # a first word without server:prompt
    assert slash_query("/notes:review\nmore", 18) is None  # past the command's line


def test_a_whole_command_gives_its_arguments_quoted_values_included() -> None:
    assert slash_command('/notes:review language=perl focus="speed and memory"') == (
        "notes", "review", {"language": "perl", "focus": "speed and memory"})
    assert slash_command("/notes:standup") == ("notes", "standup", {})
    assert slash_command("/notes:review please") is None  # a word that is no argument: a message, not a command
    assert slash_command("/etc/hosts") is None


def test_a_template_names_its_variables_and_escapes_their_values() -> None:
    template = McpResourceTemplate("notes://day/{date}/{+path}{?q}", "day")
    assert template.variables == ("date", "path", "q")
    assert template.expand({"date": "2026/11/27", "path": "a/b c", "q": "x y"}) == \
        "notes://day/2026%2F11%2F27/a/b%20c?q=x%20y"
    assert McpResourceTemplate("file:///{path}{?rev,at}", "f").expand({"path": "a.txt", "rev": "2"}) == \
        "file:///a.txt?rev=2"


def test_resource_links_are_read_back_from_a_tool_result() -> None:
    output = ("Found 2 notes.\n[resource link notes://today (today) — Today's notes]\n"
              "[resource link images://logo.png (logo)]\n[resource link notes://today (today)]")
    assert resource_links(output) == [("notes://today", "today"), ("images://logo.png", "logo")]
    assert resource_links("no links [resource link x]") == []
