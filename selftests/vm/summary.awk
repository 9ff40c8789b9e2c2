# SPDX-License-Identifier: GPL-2.0
#
# qpu: judges the console log of a VM run (selftests/vm/run-vm.sh). Owns the
# verdict: one PASS/FAIL/SKIP line per test case (TAP from the kselftest
# harness) or per step without TAP, the extra failures (module load and
# unload, crashed or timed-out steps, kernel splats, a guest that hung or
# died), and the closing line "N passed, N failed, N skipped".
# A step's expected kernel lines (--expect-log) are counted, not judged,
# from its STEP BEGIN up to the next module or step marker (so its dmesg
# dump is included), and each may bring one "Call Trace:" line with it.
# POSIX awk (runs under mawk).
#
# Variables (-v): steps=<file with the expected step commands, one a line>
#                 expect=<file with, per step line, its --expect-log regex
#                 or an empty line> (optional)
#                 timed_out=0|1 limit=<seconds> (the host's time limit)
#                 logfile=<console log path, for messages>

function add(kind, text) {
	nres++
	res[nres] = kind " " text
	if (kind == "PASS")
		npass++
	else if (kind == "SKIP")
		nskip++
	else
		nfail++
}

function value(s, key,    i, v) {
	i = index(s, " " key "=")
	if (!i)
		return ""
	v = substr(s, i + length(key) + 2)
	sub(/ .*/, "", v)
	return v
}

function step_label(cmd,    w) {
	w = cmd
	sub(/^ +/, "", w)
	sub(/ .*/, "", w)
	sub(/.*\//, "", w)
	return w
}

function tap_line(line,    ok, s, name, reason, kind) {
	ok = (line ~ /^ok /)
	s = line
	sub(/^(not )?ok [0-9]+ ?/, "", s)
	kind = ok ? "PASS" : "FAIL"
	name = s
	reason = ""
	if (s ~ /^# *[Ss][Kk][Ii][Pp]/) {
		# ksft_test_result_skip() prints the reason, not the name.
		kind = "SKIP"
		name = lastrun
		reason = s
	} else if (match(s, / # *[Ss][Kk][Ii][Pp]/)) {
		kind = "SKIP"
		name = substr(s, 1, RSTART - 1)
		reason = substr(s, RSTART + 3)
	} else if (s ~ /^# *XFAIL/) {
		name = (lastrun == "" ? "#" (ntap + 1) : lastrun) " (xfail)"
	} else if (s ~ /^# *error/) {
		kind = "FAIL"
		name = lastrun
		reason = s
	} else {
		sub(/ # .*/, "", name)
	}
	if (name == "")
		name = "#" (ntap + 1)
	sub(/^# */, "", reason)
	sub(/^[Ss][Kk][Ii][Pp]:? */, "", reason)
	if (reason != "")
		reason = " (" reason ")"
	if (kind == "FAIL")
		tapfail++
	ntap++
	add(kind, label ": " name reason)
}

function end_step(m,    rc, secs, to, lim, why) {
	rc = value(m, "rc") + 0
	secs = value(m, "secs")
	to = value(m, "timeout") + 0
	lim = value(m, "limit")
	why = ""
	if (ntap == 0) {
		if (to)
			add("FAIL", label ": timed out after " lim " s")
		else if (rc == 0)
			add("PASS", label)
		else if (rc == 4)
			add("SKIP", label " (exit status 4: skipped)")
		else if (rc > 128)
			add("FAIL", label ": killed by signal " (rc - 128))
		else
			add("FAIL", label ": exit status " rc)
	} else {
		if (to)
			why = "timed out after " lim " s and was killed"
		else if (rc > 128)
			why = "crashed: killed by signal " (rc - 128)
		else if (rc != 0 && rc != 4 && tapfail == 0)
			why = "exit status " rc " with no failed test"
		if (plan > ntap)
			why = why (why == "" ? "" : "; ") "only " ntap " of " plan " tests reported"
		if (why != "")
			add("FAIL", label ": " why)
	}
	in_step = 0
	ended_steps++
}

BEGIN {
	nexp = 0
	while ((getline line < steps) > 0)
		if (line != "")
			expected[++nexp] = line
	close(steps)
	if (expect != "") {
		i = 0
		while ((getline line < expect) > 0)
			expect_re[++i] = line
		close(expect)
	}
	cur_re = ""
	cur_step = 0
	pending = 0
	kpat = "BUG:|WARNING:|Oops|Call Trace|KASAN|UBSAN|possible recursive locking|INFO: task .* blocked|kmemleak: [0-9]+ new suspected|general protection fault|Kernel panic"
	where = "boot"
	began = ended = in_step = nsteps = ended_steps = 0
	npass = nfail = nskip = nres = nk = 0
}

{
	gsub(/\r/, "")
}

# Kernel messages (printk.time=1: "[   12.345678] ...") live on the console
# or in the dmesg dumps; the same line may appear in both.
/\[ *[0-9]+\.[0-9]+\]/ && !index($0, "### QPU-VM: ") {
	if (seen[$0]++) {
		# already judged (live on the console, then in a dump)
	} else if (cur_re != "" && $0 ~ cur_re) {
		nexpected[cur_step]++
		pending++
	} else if ($0 ~ kpat) {
		if (pending > 0 && $0 ~ /Call Trace:/) {
			pending--
			ntraces[cur_step]++
		} else {
			nk++
			if (nk <= 20)
				kline[nk] = "    [" where "] " $0
		}
	}
}

{
	i = index($0, "### QPU-VM: ")
	if (i) {
		m = substr($0, i + 12)
		split(m, f, " ")
		if (f[1] == "BEGIN") {
			began = 1
		} else if (f[1] == "INSMOD" && f[2] == "BEGIN") {
			where = "insmod " f[3]
			cur_re = ""
			pending = 0
		} else if (f[1] == "INSMOD" && f[2] == "END") {
			if (value(m, "rc") != "0")
				add("FAIL", "vm: insmod " f[3] " failed (rc=" value(m, "rc") "): steps not run")
		} else if (f[1] == "STEP" && f[2] == "BEGIN") {
			if (in_step)
				add("FAIL", label ": no end marker")
			nsteps++
			cmd = m
			sub(/^STEP BEGIN [0-9]+ /, "", cmd)
			label = step_label(cmd)
			where = label
			cur_step = f[3] + 0
			step_name[cur_step] = label
			cur_re = expect_re[cur_step]
			pending = 0
			in_step = 1
			ntap = tapfail = 0
			plan = -1
			lastrun = ""
		} else if (f[1] == "STEP" && f[2] == "END") {
			if (in_step)
				end_step(m)
		} else if (f[1] == "RMMOD") {
			if (value(m, "rc") != "0")
				add("FAIL", "vm: rmmod " f[2] " failed (rc=" value(m, "rc") ")")
			where = "rmmod"
			cur_re = ""
			pending = 0
		} else if (f[1] == "END") {
			ended = 1
		}
		next
	}
}

in_step && /^1\.\.[0-9]+/ {
	if (plan < 0) {
		plan = $0
		sub(/^1\.\./, "", plan)
		sub(/[^0-9].*/, "", plan)
		plan += 0
	}
	next
}

in_step && /^# +RUN / {
	lastrun = $3
	next
}

in_step && /^(not )?ok [0-9]+/ {
	tap_line($0)
	next
}

END {
	if (in_step)
		add("FAIL", label ": did not finish (the guest hung, panicked or died during it)")
	for (j = nsteps + 1; j <= nexp; j++)
		add("FAIL", step_label(expected[j]) ": not run")
	if (!began)
		add("FAIL", "vm: the guest never reached /init")
	if (timed_out)
		add("FAIL", "vm: guest killed after " limit " s (host time limit): hung?")
	else if (!ended)
		add("FAIL", "vm: guest stopped before the end marker (kernel panic or crash?)")
	if (nk)
		add("FAIL", "vm: kernel log has " nk " line(s) with BUG:/WARNING:/Oops/Call Trace/...:")
	print "==== qpu VM run: summary (full console log: " logfile ") ===="
	for (j = 1; j <= nsteps; j++)
		if (nexpected[j])
			print "NOTE " step_name[j] ": " nexpected[j] \
				" kernel log line(s) matched its --expect-log, with " \
				ntraces[j] + 0 " stack dump(s)"
	for (j = 1; j <= nres; j++) {
		print res[j]
		if (res[j] ~ /^FAIL vm: kernel log has /) {
			for (k = 1; k <= nk && k <= 20; k++)
				print kline[k]
			if (nk > 20)
				print "    ... (" nk - 20 " more)"
		}
	}
	print npass " passed, " nfail " failed, " nskip " skipped"
	exit nfail > 0
}
