/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpu.ko's tracepoints (events/qpu/ in tracefs): a job's submission, start,
 * end, fault and timeout, and every V3D reset. Each job event names the
 * device, the submitting file's client id (QPU_A_CLIENT_ID on netlink) and
 * the job's seqno in that file, so one job can be followed from SUBMIT to
 * its end; qpu_trace.c instantiates them.
 */

#if !defined(QPU_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define QPU_TRACE_H

#include <linux/ktime.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

#include "qpu_drv.h"

#undef TRACE_SYSTEM
#define TRACE_SYSTEM qpu
#define TRACE_INCLUDE_FILE qpu_trace

/* The enums' values in the format files, for tools that parse them. */
TRACE_DEFINE_ENUM(QPU_JOB_DONE);
TRACE_DEFINE_ENUM(QPU_JOB_TIMEOUT);
TRACE_DEFINE_ENUM(QPU_JOB_FAULT);
TRACE_DEFINE_ENUM(QPU_JOB_CANCELED);
TRACE_DEFINE_ENUM(QPU_JOB_DEADLOCK);
TRACE_DEFINE_ENUM(QPU_FAULT_FETCH);
TRACE_DEFINE_ENUM(QPU_FAULT_UNIFORM);
TRACE_DEFINE_ENUM(QPU_FAULT_TMU);
TRACE_DEFINE_ENUM(QPU_FAULT_DMA_LOAD);
TRACE_DEFINE_ENUM(QPU_FAULT_DMA_STORE);
TRACE_DEFINE_ENUM(QPU_FAULT_OTHER);
TRACE_DEFINE_ENUM(QPU_RESET_TIMEOUT);
TRACE_DEFINE_ENUM(QPU_RESET_FAULT);
TRACE_DEFINE_ENUM(QPU_RESET_ADMIN);
TRACE_DEFINE_ENUM(QPU_RESET_REMOVE);
TRACE_DEFINE_ENUM(QPU_RESET_DEADLOCK);

#define qpu_trace_show_status(status)					\
	__print_symbolic(status,					\
			 { QPU_JOB_DONE, "done" },			\
			 { QPU_JOB_TIMEOUT, "timeout" },		\
			 { QPU_JOB_FAULT, "fault" },			\
			 { QPU_JOB_CANCELED, "canceled" },		\
			 { QPU_JOB_DEADLOCK, "deadlock" })

#define qpu_trace_show_access(access)					\
	__print_symbolic(access,					\
			 { QPU_FAULT_FETCH, "fetch" },			\
			 { QPU_FAULT_UNIFORM, "uniform" },		\
			 { QPU_FAULT_TMU, "tmu" },			\
			 { QPU_FAULT_DMA_LOAD, "dma_load" },		\
			 { QPU_FAULT_DMA_STORE, "dma_store" },		\
			 { QPU_FAULT_OTHER, "other" })

/* Reason 0 is the reset between two files' jobs (qpu_sched_isolate()). */
#define qpu_trace_show_reason(reason)					\
	__print_symbolic(reason,					\
			 { 0, "isolation" },				\
			 { QPU_RESET_TIMEOUT, "timeout" },		\
			 { QPU_RESET_FAULT, "fault" },			\
			 { QPU_RESET_ADMIN, "admin" },			\
			 { QPU_RESET_REMOVE, "remove" },		\
			 { QPU_RESET_DEADLOCK, "deadlock" })

/* SUBMIT accepted a job: in the submitter's context, before it is queued. */
TRACE_EVENT(qpu_job_submit,
	    TP_PROTO(const struct qpu_dev *qdev, const struct qpu_job *job),
	    TP_ARGS(qdev, job),

	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, client)
			     __field(u64, seqno)
			     __field(u32, programs)
			     __field(u32, bos)
			     __field(u32, timeout_ms)
			     __field(bool, in_fence)),

	    TP_fast_assign(__entry->dev = qdev->index;
			   __entry->client = job->client_id;
			   __entry->seqno = job->seqno;
			   __entry->programs = job->program_count;
			   __entry->bos = job->bo_count;
			   __entry->timeout_ms = ktime_to_ms(job->timeout);
			   __entry->in_fence = !!job->in_fence),

	    TP_printk("dev=%u client=%u seqno=%llu programs=%u bos=%u timeout_ms=%u in_fence=%d",
		      __entry->dev, __entry->client, __entry->seqno,
		      __entry->programs, __entry->bos, __entry->timeout_ms,
		      __entry->in_fence)
);

/* The scheduler hands the job's programs to the V3D. */
TRACE_EVENT(qpu_job_start,
	    TP_PROTO(const struct qpu_dev *qdev, const struct qpu_job *job),
	    TP_ARGS(qdev, job),

	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, client)
			     __field(u64, seqno)
			     __field(u32, programs)
			     __field(u32, code_addr)),

	    TP_fast_assign(__entry->dev = qdev->index;
			   __entry->client = job->client_id;
			   __entry->seqno = job->seqno;
			   __entry->programs = job->program_count;
			   __entry->code_addr = job->code_addr[0]),

	    TP_printk("dev=%u client=%u seqno=%llu programs=%u code_addr=%#010x",
		      __entry->dev, __entry->client, __entry->seqno,
		      __entry->programs, __entry->code_addr)
);

/*
 * A started job ended, whatever its status; @duration_ns runs from its
 * start to now, as the scheduler saw them.
 */
TRACE_EVENT(qpu_job_end,
	    TP_PROTO(const struct qpu_dev *qdev, const struct qpu_job *job,
		     u32 status, u64 duration_ns),
	    TP_ARGS(qdev, job, status, duration_ns),

	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, client)
			     __field(u64, seqno)
			     __field(u32, programs)
			     __field(u32, status)
			     __field(u64, duration_ns)),

	    TP_fast_assign(__entry->dev = qdev->index;
			   __entry->client = job->client_id;
			   __entry->seqno = job->seqno;
			   __entry->programs = job->program_count;
			   __entry->status = status;
			   __entry->duration_ns = duration_ns),

	    TP_printk("dev=%u client=%u seqno=%llu programs=%u status=%s duration_ns=%llu",
		      __entry->dev, __entry->client, __entry->seqno,
		      __entry->programs, qpu_trace_show_status(__entry->status),
		      __entry->duration_ns)
);

/* A program of the job faulted: where, and what kind of access. */
TRACE_EVENT(qpu_job_fault,
	    TP_PROTO(const struct qpu_dev *qdev, const struct qpu_job *job),
	    TP_ARGS(qdev, job),

	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, client)
			     __field(u64, seqno)
			     __field(u32, qpu)
			     __field(u32, pc)
			     __field(u32, addr)
			     __field(u32, access)),

	    TP_fast_assign(__entry->dev = qdev->index;
			   __entry->client = job->client_id;
			   __entry->seqno = job->seqno;
			   __entry->qpu = job->fault.qpu;
			   __entry->pc = job->fault.pc;
			   __entry->addr = job->fault.addr;
			   __entry->access = job->fault.access),

	    TP_printk("dev=%u client=%u seqno=%llu qpu=%u pc=%#010x addr=%#010x access=%s",
		      __entry->dev, __entry->client, __entry->seqno,
		      __entry->qpu, __entry->pc, __entry->addr,
		      qpu_trace_show_access(__entry->access))
);

/*
 * The job ran out of time (@status QPU_JOB_TIMEOUT) or deadlocked
 * (QPU_JOB_DEADLOCK); @duration_ns since its start.
 */
TRACE_EVENT(qpu_job_timeout,
	    TP_PROTO(const struct qpu_dev *qdev, const struct qpu_job *job,
		     u32 status, u64 duration_ns),
	    TP_ARGS(qdev, job, status, duration_ns),

	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, client)
			     __field(u64, seqno)
			     __field(u32, timeout_ms)
			     __field(u32, status)
			     __field(u64, duration_ns)),

	    TP_fast_assign(__entry->dev = qdev->index;
			   __entry->client = job->client_id;
			   __entry->seqno = job->seqno;
			   __entry->timeout_ms = ktime_to_ms(job->timeout);
			   __entry->status = status;
			   __entry->duration_ns = duration_ns),

	    TP_printk("dev=%u client=%u seqno=%llu timeout_ms=%u kind=%s duration_ns=%llu",
		      __entry->dev, __entry->client, __entry->seqno,
		      __entry->timeout_ms, qpu_trace_show_status(__entry->status),
		      __entry->duration_ns)
);

/* The scheduler reset the V3D: why, how it went (0 or -errno), how long. */
TRACE_EVENT(qpu_reset,
	    TP_PROTO(const struct qpu_dev *qdev, u32 reason, int ret,
		     u64 duration_ns),
	    TP_ARGS(qdev, reason, ret, duration_ns),

	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, reason)
			     __field(int, ret)
			     __field(u64, duration_ns)),

	    TP_fast_assign(__entry->dev = qdev->index;
			   __entry->reason = reason;
			   __entry->ret = ret;
			   __entry->duration_ns = duration_ns),

	    TP_printk("dev=%u reason=%s ret=%d duration_ns=%llu",
		      __entry->dev, qpu_trace_show_reason(__entry->reason),
		      __entry->ret, __entry->duration_ns)
);

#endif /* QPU_TRACE_H */

/* Outside the guard: define_trace.h reads this file again. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#include <trace/define_trace.h>
