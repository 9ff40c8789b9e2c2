// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu generic-netlink family: device identification, counters, open
 * files, the module-wide configuration, resets, and the events multicast
 * group. uapi/linux/qpu.h holds the ids and documents each command;
 * uapi/qpu.genl.yaml is the spec. The C is hand-written because 6.1 has no
 * split ops: each struct genl_ops carries its own strict policy, and
 * resv_start_op is 0, so every command is strictly validated. Requests only
 * read the devices through a reference; writes go through the setters of
 * qpu_bo.c and qpu_job.c and through the scheduler's work for resets.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netlink.h>
#include <linux/pid.h>
#include <net/genetlink.h>

#include "qpu_drv.h"

/* Index of the events group in qpu_nl_mcgrps. */
enum {
	QPU_NL_MCGRP_EVENTS,
};

static struct genl_family qpu_nl_family;

/*
 * Every refusal of a request sets the extended ack's sentence, then logs
 * the same sentence as a debug line through this (a request need not name
 * a device, so pr_debug).
 */
static void qpu_nl_dbg_refusal(const struct netlink_ext_ack *extack)
{
	pr_debug_ratelimited("netlink request refused: %s\n",
			     extack && extack->_msg ? extack->_msg : "(no message)");
}

static const struct nla_policy qpu_nl_dev_policy[QPU_A_DEV_INDEX + 1] = {
	[QPU_A_DEV_INDEX] = { .type = NLA_U32 },
};

static const struct nla_policy qpu_nl_stats_policy[QPU_A_STATS_DEV_INDEX + 1] = {
	[QPU_A_STATS_DEV_INDEX] = { .type = NLA_U32 },
};

static const struct nla_policy qpu_nl_client_policy[QPU_A_CLIENT_ID + 1] = {
	[QPU_A_CLIENT_DEV_INDEX] = { .type = NLA_U32 },
	[QPU_A_CLIENT_PID] = NLA_POLICY_MIN(NLA_U32, 1),
	[QPU_A_CLIENT_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy qpu_nl_hang_policy[QPU_A_HANG_DEV_INDEX + 1] = {
	[QPU_A_HANG_DEV_INDEX] = { .type = NLA_U32 },
};

static struct netlink_range_validation qpu_nl_timeout_range = {
	.min = 1,
	.max = QPU_JOB_TIMEOUT_MAX_MS,
};

static struct netlink_range_validation qpu_nl_bytes_range = {
	.min = QPU_BO_LIMIT_MIN,
	.max = QPU_BO_LIMIT_MAX,
};

static struct netlink_range_validation qpu_nl_jobs_range = {
	.min = 1,
	.max = QPU_JOBS_QUEUED_MAX,
};

static const struct nla_policy qpu_nl_config_policy[QPU_A_CONFIG_MAX + 1] = {
	[QPU_A_CONFIG_DEFAULT_TIMEOUT_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &qpu_nl_timeout_range),
	[QPU_A_CONFIG_MAX_TIMEOUT_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &qpu_nl_timeout_range),
	[QPU_A_CONFIG_MAX_BO_SIZE] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &qpu_nl_bytes_range),
	[QPU_A_CONFIG_CLIENT_MEM_LIMIT] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &qpu_nl_bytes_range),
	[QPU_A_CONFIG_DEV_MEM_LIMIT] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &qpu_nl_bytes_range),
	[QPU_A_CONFIG_MAX_QUEUED_JOBS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &qpu_nl_jobs_range),
};

/* The device a request names in attribute @type, referenced. */
static struct qpu_dev *qpu_nl_dev_from_attr(struct genl_info *info, int type)
{
	struct nlattr *attr = info->attrs[type];
	struct qpu_dev *qdev;

	if (!attr) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, type);
		NL_SET_ERR_MSG_MOD(info->extack, "missing device index");
		qpu_nl_dbg_refusal(info->extack);
		return ERR_PTR(-EINVAL);
	}
	qdev = qpu_dev_lookup(nla_get_u32(attr));
	if (!qdev) {
		NL_SET_BAD_ATTR(info->extack, attr);
		NL_SET_ERR_MSG_MOD(info->extack, "no such device");
		qpu_nl_dbg_refusal(info->extack);
		return ERR_PTR(-ENODEV);
	}
	return qdev;
}

/* The reply of a device's GET: where it goes and how it is flagged. */
struct qpu_nl_dest {
	u32 portid;
	u32 seq;
	int flags;
};

typedef int (*qpu_nl_fill_fn)(struct sk_buff *skb, struct qpu_dev *qdev,
			      const struct qpu_nl_dest *dest);

static int qpu_nl_dev_fill(struct sk_buff *skb, struct qpu_dev *qdev,
			   const struct qpu_nl_dest *dest)
{
	const struct qpu_v3d_ident *id = &qdev->ident;
	struct qpu_sched_snapshot snap;
	void *hdr;

	qpu_sched_snapshot(qdev, &snap);
	hdr = genlmsg_put(skb, dest->portid, dest->seq, &qpu_nl_family,
			  dest->flags, QPU_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, QPU_A_DEV_INDEX, qdev->index) ||
	    nla_put_string(skb, QPU_A_DEV_NAME, qdev->name) ||
	    nla_put_u32(skb, QPU_A_DEV_BACKEND, qdev->backend) ||
	    nla_put_u32(skb, QPU_A_DEV_STATE, snap.state) ||
	    nla_put_u32(skb, QPU_A_DEV_IDENT0, id->raw[0]) ||
	    nla_put_u32(skb, QPU_A_DEV_IDENT1, id->raw[1]) ||
	    nla_put_u32(skb, QPU_A_DEV_IDENT2, id->raw[2]) ||
	    nla_put_u32(skb, QPU_A_DEV_REVISION, id->revision) ||
	    nla_put_u32(skb, QPU_A_DEV_NUM_QPUS,
			id->num_slices * id->qpus_per_slice) ||
	    nla_put_u32(skb, QPU_A_DEV_NUM_SLICES, id->num_slices) ||
	    nla_put_u32(skb, QPU_A_DEV_NUM_SEMAPHORES, id->num_semaphores) ||
	    nla_put_u32(skb, QPU_A_DEV_VPM_SIZE, id->vpm_size) ||
	    (qdev->clock_hz &&
	     nla_put_u32(skb, QPU_A_DEV_CLOCK_HZ, qdev->clock_hz)) ||
	    qpu_telemetry_put_dev(skb, qdev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int qpu_nl_put_counter(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, QPU_A_STATS_PAD);
}

/*
 * May the requester see what other users do on the devices (their files,
 * the per-QPU counts)? As hidepid's users expect: only with CAP_NET_ADMIN
 * or CAP_SYS_ADMIN. A request runs in the requester's context.
 */
static bool qpu_nl_sees_all_users(void)
{
	return has_capability_noaudit(current, CAP_NET_ADMIN) ||
	       has_capability_noaudit(current, CAP_SYS_ADMIN);
}

/*
 * One QPU_A_STATS_QPU nest per QPU, where the backend counts per QPU, for a
 * requester who may see every user's work (they tell what others run).
 */
static int qpu_nl_put_qpus(struct sk_buff *skb, struct qpu_dev *qdev)
{
	const struct qpu_v3d_ident *id = &qdev->ident;
	unsigned int i, n = min_t(unsigned int, QPU_MAX_QPUS,
				  id->num_slices * id->qpus_per_slice);
	u64 counts[QPU_MAX_QPUS];
	struct nlattr *nest;

	if (!qdev->ops->qpu_instructions || !qpu_nl_sees_all_users())
		return 0;
	qdev->ops->qpu_instructions(qdev, counts, n);
	for (i = 0; i < n; i++) {
		nest = nla_nest_start(skb, QPU_A_STATS_QPU);
		if (!nest)
			return -EMSGSIZE;
		if (nla_put_u32(skb, QPU_A_QPU_INDEX, i) ||
		    nla_put_u64_64bit(skb, QPU_A_QPU_INSTRUCTIONS, counts[i],
				      QPU_A_QPU_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int qpu_nl_stats_fill(struct sk_buff *skb, struct qpu_dev *qdev,
			     const struct qpu_nl_dest *dest)
{
	struct qpu_sched_snapshot snap;
	void *hdr;

	qpu_sched_snapshot(qdev, &snap);
	hdr = genlmsg_put(skb, dest->portid, dest->seq, &qpu_nl_family,
			  dest->flags, QPU_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, QPU_A_STATS_DEV_INDEX, qdev->index) ||
	    qpu_nl_put_counter(skb, QPU_A_STATS_JOBS_SUBMITTED,
			       snap.jobs_submitted) ||
	    qpu_nl_put_counter(skb, QPU_A_STATS_JOBS_DONE, snap.jobs_done) ||
	    qpu_nl_put_counter(skb, QPU_A_STATS_JOBS_FAILED, snap.jobs_failed) ||
	    qpu_nl_put_counter(skb, QPU_A_STATS_JOBS_TIMEOUT,
			       snap.jobs_timeout) ||
	    qpu_nl_put_counter(skb, QPU_A_STATS_JOBS_CANCELED,
			       snap.jobs_canceled) ||
	    qpu_nl_put_counter(skb, QPU_A_STATS_RESETS, snap.resets) ||
	    nla_put_u64_64bit(skb, QPU_A_STATS_BO_COUNT,
			      atomic_read(&qdev->bo_count), QPU_A_STATS_PAD) ||
	    qpu_nl_put_counter(skb, QPU_A_STATS_BO_BYTES,
			       atomic64_read(&qdev->bo_bytes)) ||
	    nla_put_u64_64bit(skb, QPU_A_STATS_BUSY_NS, snap.busy_ns,
			      QPU_A_STATS_PAD) ||
	    qpu_nl_put_qpus(skb, qdev) ||
	    qpu_telemetry_put_stats(skb, qdev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* The doit of a per-device GET: one reply for the device named. */
static int qpu_nl_get_doit(struct genl_info *info, int index_type,
			   qpu_nl_fill_fn fill)
{
	struct qpu_nl_dest dest = {
		.portid = info->snd_portid,
		.seq = info->snd_seq,
	};
	struct qpu_dev *qdev;
	struct sk_buff *msg;
	int ret;

	qdev = qpu_nl_dev_from_attr(info, index_type);
	if (IS_ERR(qdev))
		return PTR_ERR(qdev);

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out_put;
	}
	ret = fill(msg, qdev, &dest);
	if (ret) {
		if (ret == -ENOENT) {
			NL_SET_ERR_MSG_MOD(info->extack, "nothing recorded on this device");
			qpu_nl_dbg_refusal(info->extack);
		}
		nlmsg_free(msg);
		goto out_put;
	}
	ret = genlmsg_reply(msg, info);
out_put:
	qpu_dev_put(qdev);
	return ret;
}

/*
 * The dumps walk the devices by index: cb->args[0] is the next index,
 * cb->args[1] a position inside that device (the client dump's next file).
 * The attribute @index_type of the request, when present, keeps one device.
 */
typedef int (*qpu_nl_dump_fn)(struct sk_buff *skb, struct netlink_callback *cb,
			      struct qpu_dev *qdev);

static int qpu_nl_dump(struct sk_buff *skb, struct netlink_callback *cb,
		       int index_type, qpu_nl_dump_fn dump)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *only = info->attrs ? info->attrs[index_type] : NULL;
	unsigned long index = cb->args[0];
	struct qpu_dev *qdev;
	int ret = 0;

	if (only && index < nla_get_u32(only))
		index = nla_get_u32(only);
	while ((qdev = qpu_dev_next(&index))) {
		if (only && index != nla_get_u32(only)) {
			qpu_dev_put(qdev);
			break;
		}
		ret = dump(skb, cb, qdev);
		qpu_dev_put(qdev);
		if (ret)
			break;
		index++;
		cb->args[1] = 0;
	}
	cb->args[0] = index;

	/* A full part ends here; the next one resumes at the same place. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

static int qpu_nl_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			   struct qpu_dev *qdev, qpu_nl_fill_fn fill)
{
	struct qpu_nl_dest dest = {
		.portid = NETLINK_CB(cb->skb).portid,
		.seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI,
	};

	return fill(skb, qdev, &dest);
}

static int qpu_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return qpu_nl_get_doit(info, QPU_A_DEV_INDEX, qpu_nl_dev_fill);
}

static int qpu_nl_dev_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			       struct qpu_dev *qdev)
{
	return qpu_nl_dump_one(skb, cb, qdev, qpu_nl_dev_fill);
}

static int qpu_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return qpu_nl_dump(skb, cb, QPU_A_DEV_INDEX, qpu_nl_dev_dump_one);
}

static int qpu_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return qpu_nl_get_doit(info, QPU_A_STATS_DEV_INDEX, qpu_nl_stats_fill);
}

static int qpu_nl_stats_dump_one(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 struct qpu_dev *qdev)
{
	return qpu_nl_dump_one(skb, cb, qdev, qpu_nl_stats_fill);
}

static int qpu_nl_stats_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return qpu_nl_dump(skb, cb, QPU_A_STATS_DEV_INDEX, qpu_nl_stats_dump_one);
}

/*
 * Which open files a CLIENT_GET asks for, besides the device: 0 in a field
 * matches any file; without @all_users, only files @uid opened match.
 */
struct qpu_nl_client_filter {
	u32 id;
	u32 pid;
	bool all_users;
	kuid_t uid;
};

static void qpu_nl_client_filter_init(struct qpu_nl_client_filter *filter,
				      struct nlattr **attrs)
{
	filter->id = 0;
	filter->pid = 0;
	filter->all_users = qpu_nl_sees_all_users();
	filter->uid = current_euid();
	if (!attrs)
		return;
	if (attrs[QPU_A_CLIENT_ID])
		filter->id = nla_get_u32(attrs[QPU_A_CLIENT_ID]);
	if (attrs[QPU_A_CLIENT_PID])
		filter->pid = nla_get_u32(attrs[QPU_A_CLIENT_PID]);
}

/* The caller holds qdev->files_lock, so @qf stays open. */
static bool qpu_nl_client_match_locked(struct qpu_dev *qdev,
				       const struct qpu_nl_client_filter *filter,
				       struct qpu_file *qf)
{
	lockdep_assert_held(&qdev->files_lock);
	if (filter->id && qf->client.id != filter->id)
		return false;
	if (!filter->all_users && !uid_eq(qf->uid, filter->uid))
		return false;
	/* In the requester's pid namespace, as the replies are. */
	return !filter->pid || pid_vnr(qf->pid) == filter->pid;
}

/*
 * One file's message; the caller holds qdev->files_lock. @cb is the dump's
 * callback, or NULL for a doit.
 */
static int qpu_nl_client_fill_locked(struct sk_buff *skb, struct qpu_dev *qdev,
				     struct qpu_file *qf,
				     const struct qpu_nl_dest *dest,
				     struct netlink_callback *cb)
{
	u32 bo_count = 0, queued;
	u64 bo_bytes, submitted;
	unsigned long handle;
	pid_t pid;
	struct qpu_bo *bo;
	void *hdr;

	lockdep_assert_held(&qdev->files_lock);

	mutex_lock(&qf->lock);
	xa_for_each(&qf->handles, handle, bo)
		bo_count++;
	bo_bytes = atomic64_read(&qf->quota->bytes);
	submitted = qf->client.next_seqno - 1;
	queued = qpu_sched_client_queued(qdev, &qf->client);
	mutex_unlock(&qf->lock);

	hdr = genlmsg_put(skb, dest->portid, dest->seq, &qpu_nl_family,
			  dest->flags, QPU_CMD_CLIENT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	/* A process the requester cannot see keeps its name to itself. */
	pid = pid_vnr(qf->pid);
	if (nla_put_u32(skb, QPU_A_CLIENT_DEV_INDEX, qdev->index) ||
	    nla_put_u32(skb, QPU_A_CLIENT_PID, pid) ||
	    (pid && nla_put_string(skb, QPU_A_CLIENT_COMM, qf->comm)) ||
	    nla_put_u32(skb, QPU_A_CLIENT_BO_COUNT, bo_count) ||
	    nla_put_u64_64bit(skb, QPU_A_CLIENT_BO_BYTES, bo_bytes,
			      QPU_A_CLIENT_PAD) ||
	    nla_put_u64_64bit(skb, QPU_A_CLIENT_JOBS_SUBMITTED, submitted,
			      QPU_A_CLIENT_PAD) ||
	    nla_put_u32(skb, QPU_A_CLIENT_JOBS_QUEUED, queued) ||
	    nla_put_u32(skb, QPU_A_CLIENT_ID, qf->client.id)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* The doit's answer from @qdev: its oldest matching file, or -ENOENT. */
static int qpu_nl_client_get_one(struct sk_buff *skb, struct qpu_dev *qdev,
				 const struct qpu_nl_client_filter *filter,
				 const struct qpu_nl_dest *dest)
{
	struct qpu_file *qf;
	int ret = -ENOENT;

	mutex_lock(&qdev->files_lock);
	list_for_each_entry(qf, &qdev->files, node) {
		if (qpu_nl_client_match_locked(qdev, filter, qf)) {
			ret = qpu_nl_client_fill_locked(skb, qdev, qf, dest, NULL);
			break;
		}
	}
	mutex_unlock(&qdev->files_lock);
	return ret;
}

static int qpu_nl_client_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct qpu_nl_dest dest = {
		.portid = info->snd_portid,
		.seq = info->snd_seq,
	};
	struct qpu_nl_client_filter filter;
	unsigned long index = 0;
	struct qpu_dev *qdev;
	struct sk_buff *msg;
	int ret = -ENOENT;

	qpu_nl_client_filter_init(&filter, info->attrs);
	if (!filter.id && !filter.pid) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, QPU_A_CLIENT_ID);
		NL_SET_ERR_MSG_MOD(info->extack, "missing client id or pid");
		qpu_nl_dbg_refusal(info->extack);
		return -EINVAL;
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	if (info->attrs[QPU_A_CLIENT_DEV_INDEX]) {
		qdev = qpu_nl_dev_from_attr(info, QPU_A_CLIENT_DEV_INDEX);
		if (IS_ERR(qdev)) {
			ret = PTR_ERR(qdev);
			goto err_free;
		}
		ret = qpu_nl_client_get_one(msg, qdev, &filter, &dest);
		qpu_dev_put(qdev);
	} else {
		/* The devices in index order, until one has the file. */
		while (ret == -ENOENT && (qdev = qpu_dev_next(&index))) {
			ret = qpu_nl_client_get_one(msg, qdev, &filter, &dest);
			qpu_dev_put(qdev);
			index++;
		}
	}
	if (ret == -ENOENT) {
		NL_SET_ERR_MSG_MOD(info->extack, "no such client");
		qpu_nl_dbg_refusal(info->extack);
	}
	if (ret)
		goto err_free;
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return ret;
}

static int qpu_nl_client_dump_one(struct sk_buff *skb,
				  struct netlink_callback *cb,
				  struct qpu_dev *qdev)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct qpu_nl_dest dest = {
		.portid = NETLINK_CB(cb->skb).portid,
		.seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI,
	};
	struct qpu_nl_client_filter filter;
	struct qpu_file *qf;
	unsigned long pos = 0;
	int ret = 0;

	qpu_nl_client_filter_init(&filter, info->attrs);
	mutex_lock(&qdev->files_lock);
	cb->seq = qpu_dev_files_generation();
	list_for_each_entry(qf, &qdev->files, node) {
		if (pos++ < cb->args[1] ||
		    !qpu_nl_client_match_locked(qdev, &filter, qf))
			continue;
		ret = qpu_nl_client_fill_locked(skb, qdev, qf, &dest, cb);
		if (ret)
			break;
		cb->args[1] = pos;
	}
	mutex_unlock(&qdev->files_lock);
	return ret;
}

static int qpu_nl_client_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	return qpu_nl_dump(skb, cb, QPU_A_CLIENT_DEV_INDEX,
			   qpu_nl_client_dump_one);
}

static int qpu_nl_config_fill(struct sk_buff *skb,
			      const struct qpu_nl_dest *dest)
{
	void *hdr;

	hdr = genlmsg_put(skb, dest->portid, dest->seq, &qpu_nl_family,
			  dest->flags, QPU_CMD_CONFIG_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, QPU_A_CONFIG_DEFAULT_TIMEOUT_MS,
			qpu_job_default_timeout_ms()) ||
	    nla_put_u32(skb, QPU_A_CONFIG_MAX_TIMEOUT_MS,
			qpu_job_max_timeout_ms()) ||
	    nla_put_u64_64bit(skb, QPU_A_CONFIG_MAX_BO_SIZE, qpu_bo_max_size(),
			      QPU_A_CONFIG_PAD) ||
	    nla_put_u64_64bit(skb, QPU_A_CONFIG_CLIENT_MEM_LIMIT,
			      qpu_bo_client_mem_limit(), QPU_A_CONFIG_PAD) ||
	    nla_put_u64_64bit(skb, QPU_A_CONFIG_DEV_MEM_LIMIT,
			      qpu_bo_dev_mem_limit(), QPU_A_CONFIG_PAD) ||
	    nla_put_u32(skb, QPU_A_CONFIG_MAX_QUEUED_JOBS,
			qpu_job_max_queued())) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int qpu_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct qpu_nl_dest dest = {
		.portid = info->snd_portid,
		.seq = info->snd_seq,
	};
	struct sk_buff *msg;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = qpu_nl_config_fill(msg, &dest);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* The configuration is module-wide: the dump is one message. */
static int qpu_nl_config_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct qpu_nl_dest dest = {
		.portid = NETLINK_CB(cb->skb).portid,
		.seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI,
	};
	int ret;

	if (cb->args[0])
		return 0;
	ret = qpu_nl_config_fill(skb, &dest);
	if (ret)
		return ret;
	cb->args[0] = 1;
	return skb->len;
}

static int qpu_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct nlattr *attr;
	int type, ret = 0;

	for (type = 1; type <= QPU_A_CONFIG_MAX; type++)
		if (attrs[type])
			break;
	if (type > QPU_A_CONFIG_MAX) {
		NL_SET_ERR_MSG_MOD(info->extack, "no configuration attribute given");
		qpu_nl_dbg_refusal(info->extack);
		return -EINVAL;
	}

	/* The policy checked every range, so no setter below can fail. */
	for (type = 1; type <= QPU_A_CONFIG_MAX && !ret; type++) {
		attr = attrs[type];
		if (!attr)
			continue;
		switch (type) {
		case QPU_A_CONFIG_DEFAULT_TIMEOUT_MS:
			ret = qpu_job_set_default_timeout_ms(nla_get_u32(attr));
			break;
		case QPU_A_CONFIG_MAX_TIMEOUT_MS:
			ret = qpu_job_set_max_timeout_ms(nla_get_u32(attr));
			break;
		case QPU_A_CONFIG_MAX_BO_SIZE:
			ret = qpu_bo_set_max_size(nla_get_u64(attr));
			break;
		case QPU_A_CONFIG_CLIENT_MEM_LIMIT:
			ret = qpu_bo_set_client_mem_limit(nla_get_u64(attr));
			break;
		case QPU_A_CONFIG_DEV_MEM_LIMIT:
			ret = qpu_bo_set_dev_mem_limit(nla_get_u64(attr));
			break;
		case QPU_A_CONFIG_MAX_QUEUED_JOBS:
			ret = qpu_job_set_max_queued(nla_get_u32(attr));
			break;
		}
		if (ret) {
			NL_SET_BAD_ATTR(info->extack, attr);
			NL_SET_ERR_MSG_MOD(info->extack, "value out of range");
			qpu_nl_dbg_refusal(info->extack);
		}
	}
	return ret;
}

/* -ENOENT when no job has timed out: qpu_nl_get_doit() says so. */
static int qpu_nl_hang_fill(struct sk_buff *skb, struct qpu_dev *qdev,
			    const struct qpu_nl_dest *dest)
{
	struct qpu_hang hang;
	void *hdr;

	if (!qpu_sched_get_hang(qdev, &hang))
		return -ENOENT;
	hdr = genlmsg_put(skb, dest->portid, dest->seq, &qpu_nl_family,
			  dest->flags, QPU_CMD_HANG_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, QPU_A_HANG_DEV_INDEX, qdev->index) ||
	    nla_put_u64_64bit(skb, QPU_A_HANG_AGE_MS,
			      ktime_ms_delta(ktime_get(), hang.time), QPU_A_HANG_PAD) ||
	    nla_put_u32(skb, QPU_A_HANG_PID, hang.pid) ||
	    nla_put_string(skb, QPU_A_HANG_COMM, hang.comm) ||
	    nla_put_u64_64bit(skb, QPU_A_HANG_SEQNO, hang.seqno, QPU_A_HANG_PAD) ||
	    nla_put_u32(skb, QPU_A_HANG_TIMEOUT_MS, hang.timeout_ms) ||
	    nla_put_u32(skb, QPU_A_HANG_PROGRAMS, hang.programs) ||
	    nla_put_u32(skb, QPU_A_HANG_CODE_ADDR, hang.code_addr) ||
	    nla_put_u32(skb, QPU_A_HANG_UNIF_ADDR, hang.unif_addr) ||
	    nla_put_u32(skb, QPU_A_HANG_SRQCS, hang.srqcs) ||
	    nla_put_u32(skb, QPU_A_HANG_DBQITE, hang.dbqite) ||
	    nla_put_u32(skb, QPU_A_HANG_DBQITC, hang.dbqitc)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int qpu_nl_hang_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return qpu_nl_get_doit(info, QPU_A_HANG_DEV_INDEX, qpu_nl_hang_fill);
}

/* A device on which no job has timed out has no message in the dump. */
static int qpu_nl_hang_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
				struct qpu_dev *qdev)
{
	int ret = qpu_nl_dump_one(skb, cb, qdev, qpu_nl_hang_fill);

	return ret == -ENOENT ? 0 : ret;
}

static int qpu_nl_hang_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	return qpu_nl_dump(skb, cb, QPU_A_HANG_DEV_INDEX, qpu_nl_hang_dump_one);
}

static int qpu_nl_dev_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct qpu_dev *qdev;
	int ret;

	qdev = qpu_nl_dev_from_attr(info, QPU_A_DEV_INDEX);
	if (IS_ERR(qdev))
		return PTR_ERR(qdev);
	ret = qpu_sched_reset_request(qdev);
	if (ret == -ENODEV) {
		NL_SET_ERR_MSG_MOD(info->extack, "the device is going away");
		qpu_nl_dbg_refusal(info->extack);
	}
	qpu_dev_put(qdev);
	return ret;
}

static const struct genl_ops qpu_nl_ops[] = {
	{
		.cmd = QPU_CMD_DEV_GET,
		.doit = qpu_nl_dev_get_doit,
		.dumpit = qpu_nl_dev_get_dumpit,
		.policy = qpu_nl_dev_policy,
		.maxattr = ARRAY_SIZE(qpu_nl_dev_policy) - 1,
	},
	{
		.cmd = QPU_CMD_STATS_GET,
		.doit = qpu_nl_stats_get_doit,
		.dumpit = qpu_nl_stats_get_dumpit,
		.policy = qpu_nl_stats_policy,
		.maxattr = ARRAY_SIZE(qpu_nl_stats_policy) - 1,
	},
	{
		.cmd = QPU_CMD_CLIENT_GET,
		.doit = qpu_nl_client_get_doit,
		.dumpit = qpu_nl_client_get_dumpit,
		.policy = qpu_nl_client_policy,
		.maxattr = ARRAY_SIZE(qpu_nl_client_policy) - 1,
	},
	{
		/* No policy: the core refuses every attribute. */
		.cmd = QPU_CMD_CONFIG_GET,
		.doit = qpu_nl_config_get_doit,
		.dumpit = qpu_nl_config_get_dumpit,
	},
	{
		.cmd = QPU_CMD_CONFIG_SET,
		.doit = qpu_nl_config_set_doit,
		.policy = qpu_nl_config_policy,
		.maxattr = ARRAY_SIZE(qpu_nl_config_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = QPU_CMD_DEV_RESET,
		.doit = qpu_nl_dev_reset_doit,
		.policy = qpu_nl_dev_policy,
		.maxattr = ARRAY_SIZE(qpu_nl_dev_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		/* Registers and pids: for administrators only. */
		.cmd = QPU_CMD_HANG_GET,
		.doit = qpu_nl_hang_get_doit,
		.dumpit = qpu_nl_hang_get_dumpit,
		.policy = qpu_nl_hang_policy,
		.maxattr = ARRAY_SIZE(qpu_nl_hang_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
};

/*
 * Events carry pids and command names: privileged listeners only. A kernel
 * without the flag would let anyone join, and 6.1 has no per-family bind
 * callback to refuse them in: such a kernel gets no qpu.ko.
 */
#ifndef GENL_MCAST_CAP_NET_ADMIN
#error "qpu.ko needs GENL_MCAST_CAP_NET_ADMIN to keep its event group to admins"
#endif
static const struct genl_multicast_group qpu_nl_mcgrps[] = {
	[QPU_NL_MCGRP_EVENTS] = {
		.name = QPU_GENL_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

static struct genl_family qpu_nl_family __ro_after_init = {
	.name = QPU_GENL_NAME,
	.version = QPU_GENL_VERSION,
	.module = THIS_MODULE,
	/*
	 * No op relies on genl_mutex, and DEV_RESET sleeps until the
	 * scheduler's work has reset the V3D: do not hold every family up.
	 */
	.parallel_ops = true,
	.ops = qpu_nl_ops,
	.n_ops = ARRAY_SIZE(qpu_nl_ops),
	.resv_start_op = 0,	/* strict validation of every command */
	.mcgrps = qpu_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(qpu_nl_mcgrps),
};

/* Starts an event, or returns NULL when nobody listens or memory is short. */
static struct sk_buff *qpu_nl_event_new(struct qpu_dev *qdev, u8 cmd,
					void **hdr)
{
	struct sk_buff *msg;

	if (!genl_has_listeners(&qpu_nl_family, &init_net, QPU_NL_MCGRP_EVENTS))
		return NULL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &qpu_nl_family, 0, cmd);
	if (!*hdr || nla_put_u32(msg, QPU_A_EVENT_DEV_INDEX, qdev->index)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static void qpu_nl_event_send(struct sk_buff *msg, void *hdr)
{
	genlmsg_end(msg, hdr);
	/* -ESRCH when the last listener just left: nothing to do. */
	genlmsg_multicast(&qpu_nl_family, msg, 0, QPU_NL_MCGRP_EVENTS,
			  GFP_KERNEL);
}

/**
 * qpu_nl_job_event() - tell the listeners that a job timed out or faulted
 * @qdev: the device
 * @job: the job, ending with @status
 * @status: an enum qpu_job_status; only timeouts and faults are sent
 *
 * Called by the scheduler's work; may sleep. Events are best effort: one
 * that cannot be built is dropped.
 */
void qpu_nl_job_event(struct qpu_dev *qdev, const struct qpu_job *job,
		      u32 status)
{
	struct sk_buff *msg;
	void *hdr;
	u8 cmd;

	if (status == QPU_JOB_TIMEOUT)
		cmd = QPU_CMD_JOB_TIMEOUT_NTF;
	else if (status == QPU_JOB_FAULT)
		cmd = QPU_CMD_JOB_FAULT_NTF;
	else
		return;

	msg = qpu_nl_event_new(qdev, cmd, &hdr);
	if (!msg)
		return;
	if (nla_put_u32(msg, QPU_A_EVENT_PID, job->pid) ||
	    nla_put_string(msg, QPU_A_EVENT_COMM, job->comm) ||
	    nla_put_u64_64bit(msg, QPU_A_EVENT_SEQNO, job->seqno,
			      QPU_A_EVENT_PAD))
		goto err_free;
	if (status == QPU_JOB_TIMEOUT &&
	    nla_put_u32(msg, QPU_A_EVENT_TIMEOUT_MS, ktime_to_ms(job->timeout)))
		goto err_free;
	if (status == QPU_JOB_FAULT &&
	    (nla_put_u32(msg, QPU_A_EVENT_FAULT_QPU, job->fault.qpu) ||
	     nla_put_u32(msg, QPU_A_EVENT_FAULT_PC, job->fault.pc) ||
	     nla_put_u32(msg, QPU_A_EVENT_FAULT_ADDR, job->fault.addr) ||
	     nla_put_u32(msg, QPU_A_EVENT_FAULT_ACCESS, job->fault.access)))
		goto err_free;
	qpu_nl_event_send(msg, hdr);
	return;

err_free:
	nlmsg_free(msg);
}

/**
 * qpu_nl_reset_event() - tell the listeners that a V3D was reset
 * @qdev: the device
 * @reason: an enum qpu_reset_reason
 *
 * Called by the scheduler; may sleep.
 */
void qpu_nl_reset_event(struct qpu_dev *qdev, u32 reason)
{
	struct sk_buff *msg;
	void *hdr;

	msg = qpu_nl_event_new(qdev, QPU_CMD_DEV_RESET_NTF, &hdr);
	if (!msg)
		return;
	if (nla_put_u32(msg, QPU_A_EVENT_REASON, reason)) {
		nlmsg_free(msg);
		return;
	}
	qpu_nl_event_send(msg, hdr);
}

/**
 * qpu_nl_telemetry_event() - tell the listeners that a telemetry state changed
 * @qdev: the device
 * @event: an enum qpu_telemetry_event
 * @s: the sample that changed it
 *
 * Called by the telemetry's work; may sleep.
 */
void qpu_nl_telemetry_event(struct qpu_dev *qdev, u32 event,
			    const struct qpu_telemetry_sample *s)
{
	struct sk_buff *msg;
	void *hdr;

	msg = qpu_nl_event_new(qdev, QPU_CMD_TELEMETRY_NTF, &hdr);
	if (!msg)
		return;
	if (nla_put_u32(msg, QPU_A_EVENT_TELEMETRY, event) ||
	    qpu_telemetry_put_sample(msg, s)) {
		nlmsg_free(msg);
		return;
	}
	qpu_nl_event_send(msg, hdr);
}

int qpu_nl_init(void)
{
	return genl_register_family(&qpu_nl_family);
}

void qpu_nl_exit(void)
{
	genl_unregister_family(&qpu_nl_family);
}
