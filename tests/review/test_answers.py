"""Claude's JSON answers: found whole, fenced or embedded, checked against each schema."""

from __future__ import annotations

import pytest

from cctui.review.answers import (
    AnswerError,
    AuditAnswer,
    ConflictAnswer,
    JudgeAnswer,
    ProposalAnswer,
    parse_answer,
)


def test_judge_answer_whole_fenced_or_embedded() -> None:
    body = '{"verdict": "pass", "summary": "ok", "blocking_issues": []}'
    for text in (body, f"```json\n{body}\n```", f"Here is my verdict:\n{body}\nThanks."):
        answer = parse_answer(text, JudgeAnswer)
        assert answer.verdict == "PASS" and answer.summary == "ok"


def test_lenient_shapes_are_normalised() -> None:
    answer = parse_answer(
        '{"verdict": "critical halt", "blocking_issues": ["rm -rf in setup.py"],'
        ' "suggestions": [{"description": "add tests"}]}',
        JudgeAnswer,
    )
    assert answer.verdict == "CRITICAL_HALT"
    assert answer.blocking_issues[0].description == "rm -rf in setup.py"
    assert answer.suggestions == ["add tests"]
    audit = parse_answer(
        '{"findings": [{"file": "a.py", "line": 3, "severity": "HIGH", "description": "sqli"}]}',
        AuditAnswer,
    )
    assert audit.findings[0].severity == "high" and audit.findings[0].line == 3
    assert parse_answer('{"side": "Floor Manager", "reasoning": "r"}', ConflictAnswer).side == (
        "floor_manager"
    )
    proposal = parse_answer('{"valid": false, "issues": [{"issue": "no goal"}]}', ProposalAnswer)
    assert proposal.issues == ["no goal"]


@pytest.mark.parametrize(
    ("text", "model", "reason"),
    [
        ("", JudgeAnswer, "empty"),
        ("I think it is fine.", JudgeAnswer, "not JSON"),
        ('{"verdict": "MAYBE"}', JudgeAnswer, "verdict"),
        ('{"verdict": "FAIL", "blocking_issues": []}', JudgeAnswer, "must list its blocking"),
        ('{"verdict": "PASS", "blocking_issues": ["x"]}', JudgeAnswer, "cannot have blocking"),
        ("[1, 2]", JudgeAnswer, "not an object"),
        ('{"valid": "perhaps"}', ProposalAnswer, "valid"),
        ('{"side": "nobody", "reasoning": "x"}', ConflictAnswer, "side"),
        ('{"summary": "no findings key"}', AuditAnswer, "findings"),
    ],
)
def test_answers_that_do_not_fit_name_the_problem(text: str, model: type, reason: str) -> None:
    with pytest.raises(AnswerError) as info:
        parse_answer(text, model)
    assert reason in info.value.reason
