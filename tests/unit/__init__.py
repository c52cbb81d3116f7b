"""Unit tests: the UI-free core (protocol, codec, reducer, services, controller, config, command line parsing), no terminal; fake agents run as subprocesses."""
