"""``furnace loadtest``: the hosted endpoint measured under a realistic mix of players.

* :mod:`~ai_server.loadtest.positions`: positions sampled from seeded self-play
  games (the engine's bots), cached;
* :mod:`~ai_server.loadtest.users`: locust's gRPC user and the players' mix
  (protocol only);
* :mod:`~ai_server.loadtest.runner`: the server under test, locust's runner in
  this process (gevent), what is measured;
* :mod:`~ai_server.loadtest.report`: the numbers, the capacity, and the report
  (JSON, Markdown, PNG plots);
* :mod:`~ai_server.loadtest.cli`: the command line.

Importing this package imports neither locust nor matplotlib: the command does,
when it runs (locust monkey-patches the process for gevent).
"""
