"""Clients of the Furnace gRPC service.  They speak only the protocol (never the engine).

* :mod:`clients.furnace_client`: ``FurnaceClient``, a small synchronous client;
* :mod:`clients.cli`: the ``furnace client ...`` commands;
* :mod:`clients.play`: ``play_remote``, a terminal game against bots on a server.
"""
