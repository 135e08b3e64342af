"""Furnace's gRPC service (``furnace.v1.FurnaceService``).

* :mod:`ai_server.server`: ``create_server``, ``serve``, ``BackgroundServer``;
* :mod:`ai_server.service`: the servicer (admit a call, schedule its game work, answer);
* :mod:`ai_server.calls`: each call's game work, run in the worker processes;
* :mod:`ai_server.pool` and :mod:`ai_server.worker`: the worker processes;
* :mod:`ai_server.codecs`: ``GameState`` <-> a game's JSON state;
* :mod:`ai_server.messages`: engine values (games, statuses, moves, analyses, judged
  moves) as ``furnace.v1`` messages;
* :mod:`ai_server.cli`: the ``furnace serve`` command.

The generated stubs are the top-level package :mod:`furnace_proto` (shared with
the clients).  Importing this package does not import the engine.
"""
