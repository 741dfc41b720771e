package dev.bellows.tool;

import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.JsonNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JsonSchemasTest {

    enum Unit { celsius, fahrenheit }

    enum Mode { @JsonProperty("fast") FAST, SLOW }

    @Description("A point on the grid")
    record Point(int x, int y) {}

    record Scalars(String s, int i, long l, short sh, byte b, Integer boxedI, Long boxedL, BigInteger big,
            double d, float f, Double boxedD, Float boxedF, BigDecimal dec, boolean flag, Boolean boxedFlag) {}

    record Containers(List<String> list, Set<Integer> set, Collection<Boolean> collection, String[] array,
            int[] ints, Map<String, Double> map, List<List<Unit>> nested, Map<String, List<Point>> groups) {}

    record Optionals(Optional<String> name, OptionalInt count, OptionalLong big, OptionalDouble ratio,
            Optional<List<Point>> points, String required) {}

    record Described(@Description("Where it starts") Point start, Point end,
            @Description("How fast") Mode mode, @Description("Unit of the answer") Optional<Unit> unit) {}

    record Renamed(@JsonProperty("first_name") String firstName, int age) {}

    record OnlyOptional(Optional<String> note) {}

    @Test
    void scalars() {
        assertSchema(Scalars.class, """
                {'type':'object','properties':{
                  's':{'type':'string'},'i':{'type':'integer'},'l':{'type':'integer'},'sh':{'type':'integer'},
                  'b':{'type':'integer'},'boxedI':{'type':'integer'},'boxedL':{'type':'integer'},
                  'big':{'type':'integer'},'d':{'type':'number'},'f':{'type':'number'},'boxedD':{'type':'number'},
                  'boxedF':{'type':'number'},'dec':{'type':'number'},'flag':{'type':'boolean'},
                  'boxedFlag':{'type':'boolean'}},
                 'required':['s','i','l','sh','b','boxedI','boxedL','big','d','f','boxedD','boxedF','dec','flag',
                   'boxedFlag'],
                 'additionalProperties':false}""");
    }

    @Test
    void containersEnumsAndNestedRecords() {
        assertSchema(Containers.class, """
                {'type':'object','properties':{
                  'list':{'type':'array','items':{'type':'string'}},
                  'set':{'type':'array','items':{'type':'integer'}},
                  'collection':{'type':'array','items':{'type':'boolean'}},
                  'array':{'type':'array','items':{'type':'string'}},
                  'ints':{'type':'array','items':{'type':'integer'}},
                  'map':{'type':'object','additionalProperties':{'type':'number'}},
                  'nested':{'type':'array','items':{'type':'array','items':{'type':'string','enum':['celsius','fahrenheit']}}},
                  'groups':{'type':'object','additionalProperties':{'type':'array','items':
                     {'type':'object','description':'A point on the grid','properties':{'x':{'type':'integer'},
                      'y':{'type':'integer'}},'required':['x','y'],'additionalProperties':false}}}},
                 'required':['list','set','collection','array','ints','map','nested','groups'],
                 'additionalProperties':false}""");
    }

    @Test
    void optionalsAreTheirContentAndNotRequired() {
        assertSchema(Optionals.class, """
                {'type':'object','properties':{
                  'name':{'type':'string'},'count':{'type':'integer'},'big':{'type':'integer'},
                  'ratio':{'type':'number'},
                  'points':{'type':'array','items':{'type':'object','description':'A point on the grid',
                    'properties':{'x':{'type':'integer'},'y':{'type':'integer'}},'required':['x','y'],
                    'additionalProperties':false}},
                  'required':{'type':'string'}},
                 'required':['required'],'additionalProperties':false}""");
    }

    @Test
    void descriptionsComeSecondAndTheComponentsWinOverTheTypes() {
        assertSchema(Described.class, """
                {'type':'object','properties':{
                  'start':{'type':'object','description':'Where it starts','properties':{'x':{'type':'integer'},
                    'y':{'type':'integer'}},'required':['x','y'],'additionalProperties':false},
                  'end':{'type':'object','description':'A point on the grid','properties':{'x':{'type':'integer'},
                    'y':{'type':'integer'}},'required':['x','y'],'additionalProperties':false},
                  'mode':{'type':'string','description':'How fast','enum':['fast','SLOW']},
                  'unit':{'type':'string','description':'Unit of the answer','enum':['celsius','fahrenheit']}},
                 'required':['start','end','mode'],'additionalProperties':false}""");
    }

    @Test
    void theRecordsOwnDescriptionIsTheRootDescription() {
        assertSchema(Point.class, """
                {'type':'object','description':'A point on the grid','properties':{'x':{'type':'integer'},
                 'y':{'type':'integer'}},'required':['x','y'],'additionalProperties':false}""");
    }

    @Test
    void jsonPropertyRenamesAProperty() {
        assertSchema(Renamed.class, """
                {'type':'object','properties':{'first_name':{'type':'string'},'age':{'type':'integer'}},
                 'required':['first_name','age'],'additionalProperties':false}""");
    }

    @Test
    void noRequiredListWhenEverythingIsOptional() {
        assertSchema(OnlyOptional.class, """
                {'type':'object','properties':{'note':{'type':'string'}},'additionalProperties':false}""");
    }

    @Test
    void theSchemaIsFrozenAndACopyCanBeChanged() {
        JsonNode schema = JsonSchemas.forRecord(Point.class);
        assertThatThrownBy(() -> ((ObjectNode) schema).put("type", "changed"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> ((ObjectNode) schema.get("properties")).remove("x"))
                .isInstanceOf(UnsupportedOperationException.class);
        ObjectNode copy = (ObjectNode) schema.deepCopy();
        copy.put("type", "changed");
        assertThat(schema.get("type").asString()).isEqualTo("object");
        assertThat(JsonSchemas.forRecord(Point.class).get("type").asString()).isEqualTo("object");
    }

    // --- refused types: the message names the record, the component and what to use instead

    record WithObject(String name, Object value) {}

    @SuppressWarnings("rawtypes")
    record WithRawList(List items) {}

    record WithWildcard(List<? extends Number> values) {}

    record WithIntKeys(Map<Integer, String> byId) {}

    record Node(String name, List<Node> children) {}

    record Ping(Pong pong) {}

    record Pong(Optional<Ping> ping) {}

    record WithOptionalInList(List<Optional<String>> names) {}

    record WithChar(char initial) {}

    record WithBytes(byte[] data) {}

    record Box<T>(T value) {}

    record WithDate(LocalDate when) {}

    record Outer(String id, Inner inner) {}

    record Inner(Object anything) {}

    @Test
    void objectIsRefused() {
        assertThatThrownBy(() -> JsonSchemas.forRecord(WithObject.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot generate the JSON Schema of record WithObject, component WithObject.value:"
                        + " type java.lang.Object has no JSON Schema mapping; Object says nothing the model can"
                        + " follow; use String, a number, boolean, an enum, a record, List<T>, Set<T>, an array,"
                        + " Map<String, T> or Optional<T>");
    }

    @Test
    void rawTypesAreRefused() {
        assertThatThrownBy(() -> JsonSchemas.forRecord(WithRawList.class))
                .hasMessage("cannot generate the JSON Schema of record WithRawList, component WithRawList.items:"
                        + " type java.util.List has no JSON Schema mapping; a raw List does not say what it holds;"
                        + " use List<T> with a concrete T");
    }

    @Test
    void wildcardsAreRefusedWithTheBoundAsTheSuggestion() {
        assertThatThrownBy(() -> JsonSchemas.forRecord(WithWildcard.class))
                .hasMessageEndingWith("component WithWildcard.values: type ? extends java.lang.Number has no JSON"
                        + " Schema mapping; wildcards have no schema; use List<java.lang.Number>");
    }

    @Test
    void mapsNeedStringKeys() {
        assertThatThrownBy(() -> JsonSchemas.forRecord(WithIntKeys.class))
                .hasMessageContaining("component WithIntKeys.byId")
                .hasMessageEndingWith("JSON object keys are strings; use Map<String, java.lang.String> and convert"
                        + " the keys in the handler");
    }

    @Test
    void aRecordThatContainsItselfIsRefused() {
        assertThatThrownBy(() -> JsonSchemas.forRecord(Node.class))
                .hasMessage("cannot generate the JSON Schema of record Node, component Node.children: record Node"
                        + " contains itself (Node -> Node); the model cannot write recursive arguments from a schema"
                        + " without an end, so give the nested level its own record type");
        assertThatThrownBy(() -> JsonSchemas.forRecord(Ping.class))
                .hasMessageContaining("component Pong.ping: record Ping contains itself (Ping -> Pong -> Ping)");
    }

    @Test
    void theSameRecordTwiceSideBySideIsNotACycle() {
        assertThat(JsonSchemas.forRecord(Described.class).get("properties").size()).isEqualTo(4);
    }

    @Test
    void otherUnsupportedTypesSayWhatToUse() {
        assertThatThrownBy(() -> JsonSchemas.forRecord(WithOptionalInList.class))
                .hasMessageEndingWith("Optional is only allowed as the type of a component itself, not inside"
                        + " another type; use java.lang.String here");
        assertThatThrownBy(() -> JsonSchemas.forRecord(WithChar.class)).hasMessageEndingWith("type char has no"
                + " JSON Schema mapping; use String");
        assertThatThrownBy(() -> JsonSchemas.forRecord(WithBytes.class)).hasMessageContaining("base64");
        assertThatThrownBy(() -> JsonSchemas.forRecord(Box.class)).hasMessageEndingWith("type T has no JSON"
                + " Schema mapping; a type variable has no schema; use a concrete type");
        assertThatThrownBy(() -> JsonSchemas.forRecord(WithDate.class)).hasMessageEndingWith("(for other types,"
                + " take a String and convert it in the handler)");
    }

    @Test
    void aNestedProblemNamesTheRootAndTheNestedComponent() {
        assertThatThrownBy(() -> JsonSchemas.forRecord(Outer.class))
                .hasMessageStartingWith("cannot generate the JSON Schema of record Outer, component Inner.anything:");
    }

    private static void assertSchema(Class<? extends Record> type, String expected) {
        assertThat(JsonSchemas.forRecord(type).toString()).isEqualTo(Json.normalize(expected));
    }
}
