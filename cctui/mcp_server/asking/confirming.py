"""Settling an existing file or a taken project id: ask the client, else the human, else fail.

One resolver body for ``write_to_project`` and ``register_project``: elicitation when the
client supports it (asked mid-call on older protocols, an ``Elicit`` marker on 2026-07-28),
else a ``confirmation`` input for the human at the TUI (``SessionManager.confirm``), else
the given structured error. An answer that does not fit the form cancels, with nothing done.
"""

import functools
from dataclasses import dataclass
from typing import Any, ClassVar

from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult
from pydantic import (
    BaseModel,
    PrivateAttr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_validator,
)

from cctui.core import SessionManager
from cctui.errors import CctuiError
from cctui.mcp_server.asking.decisions import can_elicit, client_label, is_modern
from cctui.projects.errors import WriteCancelled


@dataclass
class NoQuestion:
    """A resolver's "nothing to ask this round" (the session tools' and the project tools')."""


@dataclass
class Chosen:
    """The human (TUI) answered a confirmation."""

    choice: str
    decided_by: str


def _misfit(choices: tuple[str, ...]) -> WriteCancelled:
    return WriteCancelled(
        f"The answer did not fit the question (one of: {', '.join(choices)}); nothing was changed.",
        suggestion="Call again and answer with one of the offered choices.",
    )


class _Forgiving(BaseModel):
    """Mixed into a form sent as an ``Elicit`` marker: an answer that does not fit becomes an
    instance flagged ``_misfit`` instead of an error (the SDK would report that as the tool's
    own arguments being invalid, ``validation_error``), and ``choice_of`` cancels on it."""

    choices: ClassVar[tuple[str, ...]] = ()
    _misfit: bool = PrivateAttr(default=False)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_misfits(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(data)
        except ValidationError:
            misfit = cls.model_construct()
            misfit._misfit = True
            return misfit


@functools.cache
def forgiving(form: type[BaseModel], choices: tuple[str, ...]) -> type[BaseModel]:
    """``form`` with the same name, description and JSON schema (what the client is asked),
    whose answers that do not fit are kept as misfits (see ``_Forgiving``)."""
    return type(
        form.__name__,
        (_Forgiving, form),
        {"__doc__": form.__doc__, "__module__": form.__module__, "choices": choices},
    )


def choice_of(answer: ElicitationResult[Any]) -> tuple[str | None, str | None]:
    """``(choice, decided_by)`` from a resolver outcome; ``(None, None)`` when nobody was asked.

    Raises ``WriteCancelled`` for an answer that did not fit the form (nothing is done).
    """
    if isinstance(answer, AcceptedElicitation):
        data = answer.data
        if isinstance(data, NoQuestion):
            return None, None
        if isinstance(data, Chosen):
            return data.choice, data.decided_by
        if isinstance(data, _Forgiving) and data._misfit:
            raise _misfit(data.choices)
        if isinstance(data, BaseModel):
            return str(getattr(data, "choice", "cancel")), None
    return "cancel", None  # declined or cancelled the form


async def ask_or_refuse(
    ctx: Context,
    manager: SessionManager,
    *,
    subject: str,
    title: str,
    message: str,
    form: type[BaseModel],
    choices: tuple[str, ...],
    refuse: CctuiError,
) -> Any:
    """The shared resolver body: elicit, else ask the human, else raise ``refuse``."""
    if can_elicit(ctx) and not is_modern(ctx):
        # Asked here rather than through an ``Elicit`` marker: the SDK turns an answer that
        # does not fit the form into an exception cctui can only report as internal_error.
        try:
            answer = await ctx.elicit(message, form)
        except ValueError:
            raise _misfit(choices) from None
        return Chosen(choice_of(answer)[0] or "cancel", f"mcp:{client_label(ctx)}")
    if can_elicit(ctx):
        # 2026-07-28: asked by the SDK between rounds, which validates the answer itself.
        return Elicit(message, forgiving(form, choices))
    if manager.decisions.human_attached:
        choice, by = await manager.confirm(subject, title, message, choices)
        return Chosen(choice, by)
    raise refuse
