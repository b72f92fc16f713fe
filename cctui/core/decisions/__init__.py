"""Decisions: what a session (or cctui itself) asks, who is asked, and the one answer.

A *pending input* is the question (``requests.PendingInput``: a permission, a plan review,
a question for the user, a confirmation); a *decision* is its answer (``Decision``).

- ``requests``: the models, and turning the CLI's permission asks into pending inputs and
  decisions back into the CLI's answers.
- ``pending``: the open inputs, each answered exactly once; withdrawal.
- ``routing``: the one ``Router``: who is asked (a client or the human), until when.
- ``desk``: one session's inputs: asks in, answers out, timeout, publish and audit.
- ``allowances``: what "allow for the rest of the session" and "always allow in this
  project" allow.
- ``grants``: a client asking to always allow in a project (gated: config or the human).
- ``confirmations``: cctui's own questions with a few choices, outside any session.
- ``service``: ``Decisions``, the object the manager holds and front ends call.

Nothing is imported here: ``core.events`` needs ``requests`` while ``service`` needs the
events, so the package stays a namespace and ``cctui.core`` re-exports the public names.
"""
