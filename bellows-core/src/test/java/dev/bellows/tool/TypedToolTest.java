package dev.bellows.tool;

import tools.jackson.databind.node.ObjectNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A tool written as a user would write one: records, an enum, an Optional, a list and a lambda. */
class TypedToolTest {

    enum Priority { LOW, NORMAL, HIGH }

    @Description("Someone to work on the ticket")
    record Assignee(@Description("Their e-mail address") String email,
                    @Description("Their name, if known") Optional<String> name) {}

    record CreateTicket(@Description("What is wrong, in one line") String title,
                        @Description("How urgent it is") Priority priority,
                        @Description("Labels such as 'bug' or 'ui'") List<String> labels,
                        Assignee assignee,
                        @Description("Estimated hours of work") Optional<Integer> hours) {}

    record Ticket(int id, String title, Priority priority, List<String> labels) {}

    private final List<CreateTicket> received = new ArrayList<>();

    private final TypedTool<CreateTicket, Ticket> createTicket = TypedTool.of("create_ticket",
            "Open a ticket in the tracker. Use it when the user reports a bug or asks for a change.",
            CreateTicket.class,
            (context, ticket) -> {
                received.add(ticket);
                return ToolResult.of(new Ticket(42, ticket.title(), ticket.priority(), ticket.labels()));
            });

    @Test
    void theSchemaComesFromTheRecord() {
        assertThat(createTicket.inputSchema().toString()).isEqualTo(Json.normalize("""
                {'type':'object','properties':{
                  'title':{'type':'string','description':'What is wrong, in one line'},
                  'priority':{'type':'string','description':'How urgent it is','enum':['LOW','NORMAL','HIGH']},
                  'labels':{'type':'array','description':"Labels such as 'bug' or 'ui'",'items':{'type':'string'}},
                  'assignee':{'type':'object','description':'Someone to work on the ticket','properties':{
                    'email':{'type':'string','description':'Their e-mail address'},
                    'name':{'type':'string','description':'Their name, if known'}},
                    'required':['email'],'additionalProperties':false},
                  'hours':{'type':'integer','description':'Estimated hours of work'}},
                 'required':['title','priority','labels','assignee'],'additionalProperties':false}"""));
        assertThat(createTicket.validatesArguments()).isTrue();
        assertThat(createTicket.loopBreaking()).isFalse();
        assertThat(createTicket.parallelSafe()).isFalse();
        assertThat(createTicket).hasToString("TypedTool[create_ticket]");
    }

    @Test
    void goodArguments() throws Exception {
        ToolResult<Ticket> result = call("""
                {'title':'Login fails','priority':'HIGH','labels':['bug','auth'],
                 'assignee':{'email':'ana@example.com','name':'Ana'},'hours':3}""");
        assertThat(result.output()).isEqualTo(new Ticket(42, "Login fails", Priority.HIGH, List.of("bug", "auth")));
        assertThat(received).containsExactly(new CreateTicket("Login fails", Priority.HIGH, List.of("bug", "auth"),
                new Assignee("ana@example.com", Optional.of("Ana")), Optional.of(3)));
    }

    @Test
    void sloppyButLosslessArguments() throws Exception {
        call("{'title':'Login fails','priority':'high','labels':'bug','assignee':{'email':'ana@example.com',"
                + "'name':null},'hours':'3'}");
        assertThat(received).containsExactly(new CreateTicket("Login fails", Priority.HIGH, List.of("bug"),
                new Assignee("ana@example.com", Optional.empty()), Optional.of(3)));
    }

    @Test
    void absentOptionalsAreEmpty() throws Exception {
        call("{'title':'t','priority':'LOW','labels':[],'assignee':{'email':'e'}}");
        assertThat(received.getFirst().hours()).isEmpty();
        assertThat(received.getFirst().assignee().name()).isEmpty();
    }

    @Test
    void badArgumentsNeverReachTheHandlerAndTheModelReadsWhy() {
        assertThatThrownBy(() -> call("{'title':'Login fails','priority':'urgent','assignee':'ana@example.com',"
                + "'hours':2.5}"))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessage("invalid arguments for create_ticket: \"priority\": expected one of \"LOW\", \"NORMAL\","
                        + " \"HIGH\", got \"urgent\"; \"assignee\": expected object, got \"ana@example.com\";"
                        + " \"hours\": expected integer, got 2.5; \"labels\": required but missing."
                        + " Expected arguments: {\"title\": string, \"priority\": \"LOW\"|\"NORMAL\"|\"HIGH\","
                        + " \"labels\": string[], \"assignee\": {\"email\": string, \"name\"?: string},"
                        + " \"hours\"?: integer}");
        assertThat(received).isEmpty();
    }

    @Test
    void nullForARequiredComponentIsAnError() {
        assertThatThrownBy(() -> call("{'title':null,'priority':'LOW','labels':[],'assignee':{'email':'e'}}"))
                .hasMessageStartingWith("invalid arguments for create_ticket: \"title\": expected string, got null.");
        assertThatThrownBy(() -> createTicket.call(ToolContext.of("local", "create_ticket"), null))
                .hasMessageStartingWith("invalid arguments for create_ticket: \"title\": required but missing;");
    }

    @Test
    void whatTheSchemaCannotSayIsReportedOnBinding() {
        assertThatThrownBy(() -> call("{'title':'t','priority':'LOW','labels':[],'assignee':{'email':'e'},"
                + "'hours':3000000000}"))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessageStartingWith("invalid arguments for create_ticket: \"hours\": Numeric value (3000000000)"
                        + " out of range of int (-2147483648 - 2147483647).");
    }

    record Range(int from, int to) {
        Range {
            if (from > to) {
                throw new IllegalArgumentException("from must not be after to");
            }
        }
    }

    @Test
    void aRecordsOwnValidationReachesTheModel() {
        TypedTool<Range, String> tool = TypedTool.of("range", "A range", Range.class,
                (context, range) -> ToolResult.of(range.toString()));
        assertThatThrownBy(() -> tool.call(ToolContext.of("local", "range"), Json.parse("{'from':3,'to':1}")))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessage("invalid arguments for range: (root): from must not be after to. Expected arguments:"
                        + " {\"from\": integer, \"to\": integer}");
    }

    @Description("Echo a text back. Use it to test the tool loop.")
    record Echo(String text) {}

    @Test
    void theBuilderTakesTheDescriptionFromTheRecordAndSetsTheFlags() throws Exception {
        TypedTool<Echo, String> echo = TypedTool.builder("echo", Echo.class)
                .loopBreaking(true)
                .parallelSafe(true)
                .handler((context, arguments) -> ToolResult.of(context.toolName() + ": " + arguments.text()))
                .build();
        assertThat(echo.description()).isEqualTo("Echo a text back. Use it to test the tool loop.");
        assertThat(echo.loopBreaking()).isTrue();
        assertThat(echo.parallelSafe()).isTrue();
        assertThat(echo.argumentsType()).isEqualTo(Echo.class);
        assertThat(echo.call(ToolContext.of("local", "echo"), Json.parse("{'text':'hi'}")).output())
                .isEqualTo("echo: hi");
    }

    @Test
    void outputsCanCarryMedia() throws Exception {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G'};
        TypedTool<Echo, String> screenshot = TypedTool.of("screenshot", "Take a screenshot", Echo.class,
                (context, arguments) -> ToolResult.of("captured", Media.image(png, "image/png")));
        ToolResult<String> result = screenshot.call(ToolContext.of("local", "screenshot"), Json.parse("{'text':'x'}"));
        assertThat(result.media()).containsExactly(new Media("image/png", png));
    }

    @Test
    void aHandlerThatReturnsNullHasNoOutput() throws Exception {
        TypedTool<Echo, Void> quiet = TypedTool.of("quiet", "Nothing", Echo.class, (context, arguments) -> null);
        assertThat(quiet.call(ToolContext.of("local", "quiet"), Json.parse("{'text':'x'}")).output()).isNull();
    }

    @Test
    void theSchemaHandedOutIsFrozen() {
        assertThatThrownBy(() -> ((ObjectNode) createTicket.inputSchema()).removeAll())
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(createTicket.inputSchema().get("properties").size()).isEqualTo(5);
        assertThat(createTicket.inputSchema()).isSameAs(createTicket.inputSchema());   // no copy per call
    }

    @Test
    void mistakesInTheToolFailWhenItIsMade() {
        assertThatThrownBy(() -> TypedTool.of("get weather", "d", Echo.class, (c, a) -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tool name 'get weather' is not valid: use 1 to 64 letters, digits, '_' or '-' (what"
                        + " OpenAI and Anthropic accept), such as 'get_weather'");
        assertThatThrownBy(() -> TypedTool.of("x".repeat(65), "d", Echo.class, (c, a) -> null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TypedTool.of("", "d", Echo.class, (c, a) -> null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(TypedTool.of("a-Z_0".repeat(12) + "abcd", "d", Echo.class, (c, a) -> null).name()).hasSize(64);
        assertThatThrownBy(() -> TypedTool.of("range", " ", Range.class, (c, a) -> null))
                .hasMessage("tool 'range' has no description; say what it does and when to use it, with"
                        + " .description(...) or @Description on Range");
        assertThatThrownBy(() -> TypedTool.builder("range", Range.class).description("d").build())
                .isInstanceOf(NullPointerException.class)
                .hasMessage("tool 'range' has no handler; give one with .handler((context, arguments) -> ...)");
        assertThatThrownBy(() -> TypedTool.of("bad", "d", JsonSchemasTest.WithObject.class, (c, a) -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cannot generate the JSON Schema of record WithObject");
    }

    private ToolResult<Ticket> call(String arguments) throws Exception {
        return createTicket.call(ToolContext.of("local", "create_ticket"), Json.parse(arguments));
    }
}
