"""Packaging for the 802.11 multihop TCP emulation harness."""
from setuptools import find_packages, setup

setup(
    name="wifi-tcp-harness",
    version="0.1.0",
    description="Emulate TCP over multihop 802.11 networks on mac80211_hwsim radios, in User-Mode Linux guests or natively",
    python_requires=">=3.9",
    packages=find_packages(include=["harness", "harness.*", "topologies", "topologies.*",
                                    "policies", "policies.*"])
    + ["harness.resources.vm", "harness.resources.mediumd"],
    # The UML kernel's recipe and the medium's C sources travel with an installed package, so
    # `pip install .` (not only -e) can build the kernel and mediumd.
    package_dir={"harness.resources.vm": "vm", "harness.resources.mediumd": "mediumd"},
    package_data={"topologies": ["*.yaml"],  # campus files (topologies/campus.py)
                  "harness.resources.vm": ["*.txt", "guest/*", "initrd/*", "uml/*", "uml/patches/*/*",
                                           "kmod/*/*"],
                  "harness.resources.mediumd": ["Makefile", "*/*.c", "*/*.h", "*/*.mk",
                                                "*/*/*.c", "*/*/*.h"]},
    install_requires=[
        "PyYAML>=5.4",
        "pyroute2>=0.7",
        "matplotlib>=3.5",
        "pandas>=1.3",  # harness.analysis.load_frame: a result set as a DataFrame
        "scipy>=1.7",  # harness.analysis.stats: the Student t distribution
        "pytest>=7",
        # harness run --cluster: Dask distributed workers (harness.parallel.cluster)
        "distributed>=2022.1",
    ],
    entry_points={
        "console_scripts": ["harness=harness.cli:main"],
    },
)
