"""Started by Python before anything else in a command the tests run as on another platform
(tests/platform_sim.py `simulated`): the platform named in KISMET_SIMULATE_PLATFORM."""

import os

if os.environ.get("KISMET_SIMULATE_PLATFORM"):
    from tests.platform_sim import install

    install(os.environ["KISMET_SIMULATE_PLATFORM"])
