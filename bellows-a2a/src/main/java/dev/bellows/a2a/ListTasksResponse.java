package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** One page of ListTasks; {@code nextPageToken} is empty on the last page. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ListTasksResponse(List<Task> tasks, String nextPageToken, int pageSize, int totalSize) {
}
