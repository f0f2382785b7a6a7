# daemon.mk: the netlink daemon, included by mediumd/Makefile.
#
#   make mediumd       -> build/mediumd          (needs libnl-genl-3-dev, pkg-config)
#   make daemon-test   -> build and run the daemon's C unit tests (no netlink needed)

NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS   := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null)

DAEMON_SRC := $(wildcard daemon/*.c)
DAEMON_OBJ := $(patsubst daemon/%.c,$(BUILD)/daemon/%.o,$(DAEMON_SRC))
DAEMON_TESTS := $(patsubst daemon/tests/%.c,$(BUILD)/daemon/tests/%,$(wildcard daemon/tests/*.c))
# what the tests link against: the helpers that need neither netlink nor the core
DAEMON_LIB_OBJ := $(patsubst %,$(BUILD)/daemon/%.o,json lagstat pcap log hwsim_msg)

.PHONY: mediumd daemon daemon-test
mediumd daemon: $(BUILD)/mediumd

$(BUILD)/daemon/hwsim_nl.o: daemon/hwsim_nl.c daemon/*.h
	@test -n "$(NL_CFLAGS)" || { echo "mediumd needs libnl-genl-3: apt-get install -y libnl-genl-3-dev pkg-config" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icore -Idaemon $(NL_CFLAGS) -c $< -o $@

$(BUILD)/daemon/%.o: daemon/%.c daemon/*.h core/medium.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icore -Idaemon -c $< -o $@

$(BUILD)/mediumd: $(DAEMON_OBJ) $(CORE_LIB)
	$(CC) $(CFLAGS) -o $@ $(DAEMON_OBJ) $(CORE_LIB) $(NL_LIBS) -lm

$(BUILD)/daemon/tests/%: daemon/tests/%.c daemon/tests/*.h $(DAEMON_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icore -Idaemon -o $@ $< $(DAEMON_LIB_OBJ) -lm

# test_capture drives the real core through capture.c
$(BUILD)/daemon/tests/test_capture: daemon/tests/test_capture.c daemon/tests/*.h $(DAEMON_LIB_OBJ) $(BUILD)/daemon/capture.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icore -Idaemon -o $@ $< $(BUILD)/daemon/capture.o $(DAEMON_LIB_OBJ) $(CORE_LIB) -lm

daemon-test: $(DAEMON_TESTS)
	@for t in $(DAEMON_TESTS); do echo "== $$t"; $$t $(BUILD)/daemon/tests || exit 1; done
