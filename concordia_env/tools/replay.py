"""Replay a stored game move by move in the terminal, and check it reproduces its result.

::

    concordia replay results/tournament.db          # list the stored games
    concordia replay results/tournament.db 17 --step
    concordia replay results/tournament.db 17 --png-dir boards/ --until 120
    concordia replay results/tournament.db 17 --html game.html
    concordia replay --play heuristic mcts:50 random heuristic --map imperium --html game.html

``--html`` writes the game as one self-contained HTML page to watch in a browser
(:mod:`concordia_env.views.html`: the board, every decision in words, a VP chart) instead of
printing it. ``--play`` plays a new game between agents first (one spec per seat, seeded
like a tournament game with ``--seed``), so a replay needs no results file.

A game is rebuilt from its setup (``Game.new(map, players, seed, **options)``) and its
action list. Each turn shows the text board and then every action of the turn in words,
with the player who took it (a storehouse overflow can make another player decide
mid-turn). At the end the replayed final scores are compared with the stored ones: a
difference means the engine's rules changed since the game was recorded, and the exit
status is 1 (as for a stored action the position does not allow, said in one line).

Mistakes are usage errors (exit status 2), found before any game is played or replayed:
an ``--html`` path that is a directory or lies under a file (missing folders are
created), an agent spec naming a missing model file, a results file or a stored game
that is not one (:mod:`concordia_env.tools.store` checks every row it reads).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from concordia_env import Game, IllegalActionError
from concordia_env.engine import defaults
from concordia_env.engine.describe import money_text
from concordia_env.tools import arguments
from concordia_env.tools.store import GameRecord, MissingGameError, Store, StoreError
from concordia_env.tools.tournament import GameTask, make_agent, play_game
from concordia_env.views.html import Replay, record_replay

#: exit status when the replay does not reproduce the stored scores
EXIT_MISMATCH = 1


# ---------------------------------------------------------------------- board text, with a fallback
def board_text(game: Game, color: bool = False) -> str:
    """The text board of ``concordia_env.views.render``; a short per-player summary if that is missing."""
    try:
        from concordia_env.views.render import render_text
    except ImportError as exc:
        return f"(text board unavailable: {exc})\n" + player_summary(game)
    return render_text(game, color=color)


def player_summary(game: Game) -> str:
    """One line per player with what the public ``Game`` API tells: VP so far, money, goods, cards."""
    from concordia_env.engine.cards import GOODS

    lines = []
    for p in range(game.num_players):
        goods = ", ".join(f"{n} {GOODS[g]}" for g, n in enumerate(game.goods(p)) if n) or "no goods"
        lines.append(
            f"  P{p}: {game.score_breakdown(p)['total']} VP now, {money_text(game.money(p))}, {goods}, "
            f"{int(game.hand(p).sum())} cards in hand"
        )
    return "\n".join(lines) + "\n"


def breakdown_table(game: Game, seats: Sequence[str]) -> str:
    """Final (or current) VP of every player by god, as an aligned plain-text table."""
    n = game.num_players
    parts = [game.score_breakdown(p) for p in range(n)]
    labels = [f"P{p} {seats[p]}" for p in range(n)]
    width = max(12, *(len(label) for label in labels))
    keys = list(parts[0])
    lines = [" " * 16 + "".join(f"{label:>{width + 2}}" for label in labels)]
    for key in keys:
        if key == "total":
            lines.append("-" * (16 + n * (width + 2)))
        lines.append(f"{key:<16}" + "".join(f"{parts[p][key]:>{width + 2}}" for p in range(n)))
    if game.is_over():
        order = ", ".join(f"P{p}" for p in game.ranking())
        lines.append(f"places: {order}  (winner P{game.winner()}, {seats[game.winner()]})")
    return "\n".join(lines) + "\n"


def save_board_png(game: Game, path: Path) -> str | None:
    """Save a board picture; returns why not when the picture renderer is unavailable."""
    try:
        from concordia_env.views.render import save_png
    except ImportError as exc:
        return f"board pictures need concordia_env.views.render.save_png, which is unavailable here ({exc})"
    save_png(game, path)
    return None


# ---------------------------------------------------------------------- replay
@dataclass
class ReplayResult:
    game: Game
    actions_applied: int
    #: None when the replay stopped early (``until``) or was quit, else whether scores matched
    scores_match: bool | None


def replay(
    record: GameRecord,
    out: TextIO,
    *,
    until: int | None = None,
    png_dir: Path | None = None,
    pause: Callable[[], bool] | None = None,
    color: bool = False,
) -> ReplayResult:
    """Replay ``record`` onto ``out``; ``pause()`` is called after each turn and returns False to stop."""
    game = Game.new(record.map, record.players, record.seed, **record.options)
    stop_at = len(record.actions) if until is None else min(until, len(record.actions))
    turn = -1
    applied = 0
    for applied, action in enumerate(record.actions[:stop_at]):
        if game.turn_count != turn:
            if turn >= 0 and pause is not None and not pause():
                return ReplayResult(game, applied, None)
            turn = game.turn_count
            out.write(f"\n=== turn {turn}: P{game.turn_player} ({record.seats[game.turn_player]}) ===\n")
            out.write(board_text(game, color))
            if png_dir is not None:
                why_not = save_board_png(game, png_dir / f"turn_{turn:04d}.png")
                if why_not:
                    out.write(f"note: {why_not}\n")
                    png_dir = None
        player = game.current_player
        out.write(f"  [{applied + 1}] P{player} ({record.seats[player]}): {game.describe_action(action)}\n")
        game.step(action)
    applied = stop_at
    stopped_early = stop_at < len(record.actions)
    if png_dir is not None:
        save_board_png(game, png_dir / (f"after_action_{stop_at:04d}.png" if stopped_early else "final.png"))
    if stopped_early:
        out.write(f"\nstopped after action {stop_at} of {len(record.actions)}\n" + board_text(game, color))
        return ReplayResult(game, applied, None)
    out.write("\n=== final position ===\n" + board_text(game, color))
    out.write("\n" + breakdown_table(game, record.seats))
    return ReplayResult(game, applied, _check_scores(game, record, out))


def _check_scores(game: Game, record: GameRecord, out: TextIO) -> bool:
    """Whether the replay reproduces the stored result (a game stopped at a turn cap: as it stood there)."""
    if game.is_over() != record.over:
        said = "ends" if record.over else "stopped at a turn cap"
        out.write(f"MISMATCH: the stored game {said}, the replayed one {'ended' if game.is_over() else 'did not'}\n")
        return False
    replayed = [int(v) for v in game.scores()]
    if replayed != record.scores or game.ranking()[0] != record.winner:
        out.write(f"MISMATCH: stored scores {record.scores} (winner P{record.winner}), replayed {replayed}\n")
        return False
    if not record.over:
        out.write(f"stopped at the turn cap after turn {game.turn_count}; scores as they stood equal the stored ones: ")
        out.write(f"{replayed}\n")
        return True
    out.write(f"replayed scores equal the stored ones: {replayed}\n")
    return True


def html_replay(record: GameRecord) -> Replay:
    """The game of ``record`` as an HTML replay (its final scores are the replayed ones)."""
    start = Game.new(record.map, record.players, record.seed, **record.options)
    title = f"{start.map.title}, {record.players} players: {', '.join(record.seats)}"
    return record_replay(
        start, record.actions, seats=record.seats, title=title, seed=record.seed, options=record.options
    )


def write_html(record: GameRecord, path: Path, out: TextIO) -> bool:
    """Write ``record``'s HTML replay to ``path``; returns whether the replay reproduced the stored scores."""
    replay = html_replay(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    replay.write(path)
    result = replay.data["result"]
    out.write(f"wrote {path} ({replay.num_decisions} decisions, {path.stat().st_size / 1024:.0f} kB)\n")
    leader = result["winner"] if result["finished"] else result["ranking"][0]
    if result["finished"] != record.over or result["scores"] != record.scores or leader != record.winner:
        out.write(f"MISMATCH: stored scores {record.scores} (winner P{record.winner}), replayed {result['scores']}\n")
        return False
    return True


def play_new_game(specs: Sequence[str], map_name: str, seed: int) -> GameRecord:
    """One game between agents (``specs[s]`` in seat ``s``), played as a tournament plays it."""
    task = GameTask(
        tournament_id=f"play-{seed}",
        game_index=0,
        seed=seed,
        map=map_name,
        players=len(specs),
        options={},
        seats=tuple(specs),
    )
    return play_game(task)


def list_games(store: Store, out: TextIO) -> None:
    """The tournaments of a results file and the range of their game ids."""
    for t in store.tournaments():
        agents = " ".join(t.config.get("agents", t.config.get("seats", [])))
        where = f"{t.config.get('map', '?')} {t.config.get('players', '?')}p"
        span = f"game ids {t.first_game_id}..{t.last_game_id}" if t.games else "no games"
        out.write(f"{t.tournament_id}  {where}  {agents}  {t.games} games, {span}\n")


def _stdin_pause(out: TextIO) -> Callable[[], bool]:
    def pause() -> bool:
        out.write("-- Enter: next turn, q: quit -- ")
        out.flush()
        line = sys.stdin.readline()
        return bool(line) and line.strip().lower() != "q"

    return pause


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="concordia replay", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "db",
        nargs="?",
        help="results file written by concordia_env.tools.tournament or concordia_env.tools.play --save",
    )
    parser.add_argument("game_id", nargs="?", type=arguments.count, help="game id (omit to list the stored games)")
    parser.add_argument("--html", type=Path, default=None, help="write the game as a self-contained HTML replay")
    parser.add_argument(
        "--play", nargs="+", metavar="SPEC", default=None, help="play a new game between these agents (one per seat)"
    )
    arguments.add_table(  # the --play game's seats are its agents, one each
        parser, players=False, seed_help=f"setup seed of the --play game (default {defaults.COMMAND_SEED})"
    )
    parser.add_argument("--step", action="store_true", help="wait for Enter after every turn")
    parser.add_argument("--png-dir", type=Path, default=None, help="save a board PNG at the start of every turn")
    parser.add_argument("--until", type=arguments.index, default=None, help="stop after this many actions")
    parser.add_argument("--color", action=argparse.BooleanOptionalAction, default=None, help="ANSI colours")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out = sys.stdout
    arguments.refuse_unwritable(parser, "--html", args.html)  # before any game is played or replayed
    arguments.refuse_unwritable(parser, "--png-dir", args.png_dir, folder=True)
    if args.play is not None:
        if args.db is not None or args.html is None:
            parser.error("--play writes a new game's HTML replay: give --html PATH and no results file")
        try:  # an unknown agent or an impossible map/player count is refused before anything is played
            Game.new(args.map, len(args.play), args.seed)
            for spec in args.play:
                make_agent(spec)
        except (ValueError, OSError) as exc:  # OSError: a policy: or learned: spec naming a missing file
            parser.error(str(exc))
        record = play_new_game(args.play, args.map, args.seed)
        out.write(f"{args.map}, seed {args.seed}: " + ", ".join(f"P{s} {spec}" for s, spec in enumerate(args.play)))
        out.write(f"; scores {record.scores}, winner P{record.winner}\n")
        return 0 if write_html(record, args.html, out) else EXIT_MISMATCH
    if args.db is None:
        parser.error("give a results file (or --play)")
    if not Path(args.db).exists():
        parser.error(f"no results file {args.db}")
    try:
        with Store(args.db) as store:
            if args.game_id is None:
                list_games(store, out)
                return 0
            record = store.game(args.game_id)
    except (StoreError, MissingGameError) as exc:
        parser.error(str(exc))
    try:
        return _replay_record(record, args, out)
    except IllegalActionError as exc:  # the stored actions are not a game of this engine
        out.flush()
        print(
            f"concordia replay: game {record.game_id} does not replay: its stored action list holds an action this "
            f"position does not allow ({exc}); the file was changed, or the rules changed since it was stored",
            file=sys.stderr,
        )
        return EXIT_MISMATCH


def _replay_record(record: GameRecord, args: argparse.Namespace, out: TextIO) -> int:
    """Replay a stored game as ``args`` ask (HTML, or text with optional boards); the exit status."""
    if args.html is not None:
        return 0 if write_html(record, args.html, out) else EXIT_MISMATCH
    if args.png_dir is not None:
        args.png_dir.mkdir(parents=True, exist_ok=True)
    color = out.isatty() if args.color is None else args.color
    out.write(
        f"game {record.game_id} of {record.tournament_id} (index {record.game_index}): {record.map}, "
        f"{record.players} players, seed {record.seed}, {record.num_actions} actions\n"
        + "".join(f"  P{s}: {spec}\n" for s, spec in enumerate(record.seats))
    )
    pause = _stdin_pause(out) if args.step else None
    result = replay(record, out, until=args.until, png_dir=args.png_dir, pause=pause, color=color)
    return EXIT_MISMATCH if result.scores_match is False else 0


if __name__ == "__main__":
    sys.exit(main())
