"""Every citation in the code resolves inside the repository: the documents it names exist,
and every decision number [Dn] it cites is defined in docs/rules.md."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ("kismet_tui", "server", "protocol", "tests", "benchmarks")


def source_files():
    for folder in SOURCES:
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_cited_documents_are_in_the_repository():
    missing = []
    for path in source_files():
        text = path.read_text(encoding="utf-8")
        for line_no, line in enumerate(text.splitlines(), start=1):
            # The shared drafts outside the repository must not be cited any more.
            if re.search(r"\b(RULES|DESIGN)\.md\b", line):
                missing.append(f"{path.relative_to(ROOT)}:{line_no}: {line.strip()}")
            for doc in re.findall(r"\bdocs/[a-z_]+\.md\b", line):
                if not (ROOT / doc).is_file():
                    missing.append(f"{path.relative_to(ROOT)}:{line_no}: {doc} does not exist")
    assert not missing, "citations that do not resolve in the repo:\n" + "\n".join(missing)


def test_every_cited_decision_is_defined_in_the_rules():
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    defined = set(re.findall(r"\[D(\d+)\]", rules))
    assert defined == {str(n) for n in range(1, 21)} | {"23", "30", "31", "32"}
    cited = set()
    for path in source_files():
        text = path.read_text(encoding="utf-8")
        cited |= set(re.findall(r"\[D(\d+)\]", text))
        for low, high in re.findall(r"\[D(\d+)\]-\[D(\d+)\]", text):
            cited |= {str(n) for n in range(int(low), int(high) + 1)}
    assert cited, "no decision is cited: the search is broken"
    assert cited <= defined, f"cited but not defined in docs/rules.md: {sorted(cited - defined)}"
