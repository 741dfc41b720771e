package dev.bellows.opentelemetry;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import java.util.List;

/**
 * The metric instruments, made once per {@link BellowsTelemetry}: the GenAI conventions' two
 * client histograms with the bucket boundaries they give, and the loop's own counters. The
 * names, units and attributes are listed in docs/observability.md.
 */
final class Instruments {

    /** The conventions' boundaries for {@code gen_ai.client.token.usage}. */
    static final List<Long> TOKEN_BUCKETS = List.of(1L, 4L, 16L, 64L, 256L, 1024L, 4096L, 16384L, 65536L, 262144L,
            1048576L, 4194304L, 16777216L, 67108864L);
    /** The conventions' boundaries for {@code gen_ai.client.operation.duration}, in seconds. */
    static final List<Double> DURATION_BUCKETS = List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12,
            10.24, 20.48, 40.96, 81.92);

    final LongHistogram tokenUsage;
    final DoubleHistogram operationDuration;
    final LongCounter iterations;
    final LongCounter toolErrors;
    final LongCounter retries;

    Instruments(Meter meter) {
        tokenUsage = meter.histogramBuilder("gen_ai.client.token.usage")
                .setDescription("Number of input and output tokens used.")
                .setUnit("{token}")
                .ofLongs()
                .setExplicitBucketBoundariesAdvice(TOKEN_BUCKETS)
                .build();
        operationDuration = meter.histogramBuilder("gen_ai.client.operation.duration")
                .setDescription("GenAI operation duration.")
                .setUnit("s")
                .setExplicitBucketBoundariesAdvice(DURATION_BUCKETS)
                .build();
        iterations = meter.counterBuilder("bellows.loop.iterations")
                .setDescription("Iterations of the agent loop: model requests, each counted once however often it was retried.")
                .setUnit("{iteration}")
                .build();
        toolErrors = meter.counterBuilder("bellows.tool.errors")
                .setDescription("Tool calls that ran and failed.")
                .setUnit("{error}")
                .build();
        retries = meter.counterBuilder("bellows.model.retries")
                .setDescription("Model requests sent again after a failed attempt.")
                .setUnit("{retry}")
                .build();
    }

    void tokens(Attributes common, long input, long output) {
        tokenUsage.record(input, common.toBuilder().put(GenAi.TOKEN_TYPE, "input").build());
        tokenUsage.record(output, common.toBuilder().put(GenAi.TOKEN_TYPE, "output").build());
    }
}
