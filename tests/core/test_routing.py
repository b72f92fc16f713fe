"""The Router on its own: who is asked about an input, and what a client that gave up loses."""

from __future__ import annotations

from cctui.core.decisions.pending import PendingInputs
from cctui.core.decisions.routing import Router
from cctui.core.session.inputs import Decision, PendingInput


def _setup() -> tuple[PendingInputs, Router, list[PendingInput]]:
    inputs = PendingInputs()
    announced: list[PendingInput] = []
    return inputs, Router(inputs, announced.append), announced


def _item(session_id: str = "s1") -> PendingInput:
    return PendingInput(session_id=session_id, kind="permission", tool_name="Bash", tool_input={})


async def test_an_input_goes_to_the_human_unless_a_client_that_can_ask_is_waiting() -> None:
    _, router, _ = _setup()
    assert router.route(_item()).route == "human"
    with router.waiting("s1", "quiet", can_ask=False), router.waiting("s1", "asker", True):
        routed = router.route(_item())
        other_session = router.route(_item("s2"))
    assert (routed.route, routed.route_label) == ("client", "asker")
    assert other_session.route == "human"
    assert router.route(_item()).route == "human"  # the call ended: nobody waits any more


async def test_the_owner_is_asked_about_its_sessions_inputs_the_human_has() -> None:
    inputs, router, _ = _setup()
    item = _item()
    inputs.open(item)
    assert router.claim([item], "owner") is None
    router.note_owner("s1", "owner", can_ask=True)
    assert router.claim([item], "stranger") is None
    assert router.claim([item], "owner") == item
    assert router.asked_open("s1", "owner") == item
    router.note_owner("s1", "someone-else", can_ask=False)  # a driver that cannot ask
    assert router.claim([item], "owner") == item  # still asked: it was asked before


async def test_a_client_that_gave_up_is_never_asked_again_and_the_human_is_told() -> None:
    inputs, router, announced = _setup()
    with router.waiting("s1", "asker", can_ask=True):
        item = router.route(_item())
    inputs.open(item)
    assert router.claim([item], "asker") == item
    router.gave_up(item.id)
    assert router.claim(inputs.list(), "asker") is None
    assert router.asked_open("s1", "asker") is None
    [human] = announced
    assert human.id == item.id and human.route == "human"
    assert inputs.get(item.id).route == "human"
    router.gave_up(item.id)  # again: it is the human's already, nothing is announced
    assert len(announced) == 1


async def test_handing_an_answered_input_to_the_human_is_harmless() -> None:
    inputs, router, announced = _setup()
    with router.waiting("s1", "asker", can_ask=True):
        item = router.route(_item())
    inputs.open(item)
    inputs.resolve(item.id, Decision(behavior="allow"), "tui")
    router.gave_up(item.id)
    assert announced == []
