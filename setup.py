"""Packaging for the 802.11 multihop TCP emulation harness."""
from setuptools import find_packages, setup

setup(
    name="wifi-tcp-harness",
    version="0.1.0",
    description="Emulate TCP over multihop 802.11 networks on mac80211_hwsim radios, natively or in a QEMU guest",
    python_requires=">=3.9",
    packages=find_packages(include=["harness", "harness.*", "topologies", "topologies.*",
                                    "policies", "policies.*"]),
    include_package_data=True,
    install_requires=[
        "PyYAML>=5.4",
        "pyroute2>=0.7",
        "matplotlib>=3.5",
        "pytest>=7",
    ],
    entry_points={
        "console_scripts": ["harness=harness.cli:main"],
        "pytest11": ["harness=harness.pytest_plugin"],
    },
)
