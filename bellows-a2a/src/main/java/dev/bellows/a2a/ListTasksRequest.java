package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** ListTasks parameters: filters (context, state, status time after an ISO 8601 instant), page size and token, history length and whether artifacts are included. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ListTasksRequest(String tenant, String contextId, TaskState status, Integer pageSize, String pageToken,
        Integer historyLength, String statusTimestampAfter, Boolean includeArtifacts) {
}
