"""``furnace loadtest``: the hosted endpoint measured under a realistic mix of players.

* :mod:`~load.positions`: positions sampled from seeded self-play
  games (the engine's bots), cached;
* :mod:`~load.users`: locust's gRPC user and the players' mix
  (protocol only);
* :mod:`~load.runner`: the server under test, locust's runner in
  this process (gevent), what is measured;
* :mod:`~load.report`: the numbers, the capacity, and the report
  (JSON, Markdown, PNG plots);
* :mod:`~load.cli`: the command line.

Importing this package imports neither locust nor matplotlib: the command does,
when it runs (locust monkey-patches the process for gevent).
"""
