package dev.bellows.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.node.ObjectNode;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * The JUnit XML read back as CI systems read it: validated by the JDK's schema validator
 * against the JUnit XML schema of Ant's format (junit.xsd, test resources: what Jenkins,
 * GitLab and GitHub's test reporters take), then parsed by the JDK's DOM parser.
 */
class JunitXmlTest {

    @Test
    void oneTestcasePerCaseAndAFailureWithEachFailingEvaluatorsReason(@TempDir Path dir) throws Exception {
        Path xml = EvalReports.writeJunitXml(Sample.copyTo(dir));
        assertThat(xml).isEqualTo(dir.resolve("junit.xml"));
        validate(Files.readString(xml));
        Document document = parse(Files.readString(xml));

        Element suite = (Element) document.getElementsByTagName("testsuite").item(0);
        assertThat(suite.getAttribute("name")).isEqualTo("examples/eval/weather.jsonl");
        assertThat(suite.getAttribute("tests")).isEqualTo("5");
        assertThat(suite.getAttribute("failures")).isEqualTo("1");
        assertThat(suite.getAttribute("timestamp")).isEqualTo("2026-12-02T01:30:00");
        assertThat(suite.getAttribute("time")).isEqualTo("2.215");

        NodeList cases = document.getElementsByTagName("testcase");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < cases.getLength(); i++) {
            Element testcase = (Element) cases.item(i);
            names.add(testcase.getAttribute("name"));
            assertThat(testcase.getAttribute("classname")).isEqualTo("examples/eval/weather.jsonl");
        }
        assertThat(names).containsExactly("weather-oslo", "capital-france", "hostile-<script>alert(5)</script>", "flaky-sum", "multi-turn");
        assertThat(((Element) cases.item(0)).getAttribute("time")).isEqualTo("1.230");    // its three runs' time
        assertThat(((Element) cases.item(0)).getElementsByTagName("failure").getLength()).isZero();
        assertThat(((Element) cases.item(3)).getElementsByTagName("failure").getLength()).as("passed at its required rate").isZero();

        Element failure = (Element) ((Element) cases.item(1)).getElementsByTagName("failure").item(0);
        assertThat(failure.getAttribute("message")).isEqualTo("1 of 2 runs passed (required pass rate 1.00)");
        assertThat(failure.getTextContent()).isEqualTo("""
                contains (run 1): the answer does not contain "Paris"
                judge (run 1): Names Lyon, which is not the capital; the rubric asks for the capital.""");
    }

    @Test
    void textXmlCannotCarryIsWrittenVisiblyAndRunsSharingAReasonAreNamedTogether(@TempDir Path dir) throws Exception {
        ObjectNode report = (ObjectNode) ReportReader.readTree(Sample.copyTo(dir));
        ObjectNode failing = (ObjectNode) report.get("cases").get(1);
        failing.put("id", "bell\u0007 & \"quote\" \uD800 ]]> end");
        ObjectNode second = (ObjectNode) failing.get("runs").get(1);
        second.put("passed", false);
        second.set("scores", failing.get("runs").get(0).get("scores").deepCopy());
        second.put("error", "stopped\u0000 here\nsecond line");
        StringWriter out = new StringWriter();
        EvalReports.writeJunitXml(report, out);

        validate(out.toString());
        Element testcase = (Element) parse(out.toString()).getElementsByTagName("testcase").item(1);
        assertThat(testcase.getAttribute("name")).isEqualTo("bell\\u0007 & \"quote\" \\ud800 ]]> end");
        assertThat(testcase.getElementsByTagName("failure").item(0).getTextContent()).isEqualTo("""
                contains (runs 1, 2): the answer does not contain "Paris"
                judge (runs 1, 2): Names Lyon, which is not the capital; the rubric asks for the capital.
                error (run 2): stopped\\u0000 here
                second line""");
    }

    static void validate(String xml) throws Exception {
        SchemaFactory factory = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
        factory.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        factory.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        factory.newSchema(new StreamSource(JunitXmlTest.class.getResource("junit.xsd").toString()))
                .newValidator().validate(new StreamSource(new StringReader(xml)));
    }

    static Document parse(String xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
    }
}
