"""Closing the window: what happens to the sessions (``q``, ``on_quit``, the quit modal), the
terminal hanging up (SIGHUP), and the order things end in. ``end`` stops every session first
(no claude child may outlive cctui), then the services; ``background`` stops nothing and
leaves the sessions running in this process for the composition root to serve headless.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from cctui.core import BUSY, LIVE
from cctui.tui.screens.quit import Leaving, QuitScreen

if TYPE_CHECKING:
    from cctui.tui.app import CctuiApp

log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT_S = 10.0
"""Quitting never hangs longer than this on a stuck session or service."""


class Quitting:
    """How the window closes and what it does to the sessions; composed into the app."""

    def __init__(self, app: CctuiApp) -> None:
        self._app = app
        self.leaving: Leaving = "end"
        """What closing the window does to the sessions; ``background`` leaves them running
        in this process for the composition root to serve headless."""
        self.hung_up = False
        """The terminal hung up (closed, SSH dropped): the window did not choose to leave."""
        self.shut_down = False
        """The sessions and services are being (or have been) stopped."""

    def working_sessions(self) -> list[str]:
        """``project · title`` of every session with a turn in flight (leaving ends work)."""
        app = self._app
        return [
            app.describe_session(info.session_id)
            for info in app.manager.list()
            if info.status in BUSY
        ]

    async def quit(self) -> None:
        """Quit; sessions still working are kept in the background or ended, as the config's
        ``on_quit`` says (``ask``: the quit modal)."""
        app = self._app
        if app.attached is not None:  # the sessions are the owner's: they stay with it
            await self.leave("end")
            return
        working = self.working_sessions()
        waiting = app.manager.dispatch.waiting_work()
        if not working and not waiting:
            await self.leave("end")
        elif app.settings.on_quit == "ask":
            app.pages.open_once(QuitScreen, lambda: QuitScreen(working, waiting), self._chosen)
        else:
            await self.leave(app.settings.on_quit)

    async def _chosen(self, choice: Leaving | None) -> None:
        if choice is not None:
            await self.leave(choice)

    async def leave(self, how: Leaving) -> None:
        """Close the window: ``end`` every session first, or keep them running in this
        process (``background``: the composition root carries on headless once the app has
        exited; nothing is stopped here)."""
        app = self._app
        self.leaving = how
        if how == "background":
            app.let_go()
        else:
            if app.attached is None:
                app.notify("Stopping sessions…", timeout=SHUTDOWN_TIMEOUT_S)
            await self.stop_everything()
        app.exit()

    def hang_up(self) -> None:
        """The terminal hung up (SIGHUP: closed, SSH dropped): keep every live session
        running in the background, or end as ``q`` would with nothing to keep.

        Called from the signal handler itself, it only decides; the loop then runs
        :meth:`after_hang_up`. The decision cannot wait for the loop: the input thread sees
        the dead terminal too and may close the app (Textual's panic) first, and closing
        without a decision ends every session."""
        app = self._app
        if self.leaving == "background" or self.shut_down:
            return
        self.hung_up = True
        if any(info.status in LIVE for info in app.manager.list()) or (
            app.attached is None and app.manager.dispatch.waiting_work()
        ):
            self.leaving = "background"

    def after_hang_up(self) -> None:
        """Close the window after :meth:`hang_up` decided."""
        if self.leaving == "background":
            self._app.let_go()
        self._app.exit()

    async def stop_everything(self) -> None:
        """Sessions first, then the hosts' links, the notifications and the services."""
        if self.shut_down:
            return
        self.shut_down = True
        app = self._app
        app.let_go()
        await app.close_hosts()
        try:
            await asyncio.wait_for(app.manager.shutdown(), SHUTDOWN_TIMEOUT_S)
        except Exception:
            log.exception("manager shutdown failed")
        app.workers.cancel_group(app, "services")
        await app.alerts.sinks.close()
        app.alerts.remove_summary()
        # Every service, not only the started ones: one may be cancelled half-way (stop is
        # idempotent and stops what did start).
        for service in reversed(app.hosted):
            try:
                await asyncio.wait_for(service.stop(), SHUTDOWN_TIMEOUT_S)
            except Exception:
                log.exception("service stop failed")

    async def unmounted(self) -> None:
        """Exits that skip ``q`` (signals, ctrl+c paths) still end every session, unless the
        window leaves them running in the background."""
        if self.leaving == "background":
            self._app.let_go()
            await self._app.close_hosts()
        else:
            await self.stop_everything()
